const std = @import("std");
const clap = @import("clap");

pub fn main(init: std.process.Init) !void {
    const params = comptime clap.parseParamsComptime(
        \\-h, --help             Display this help and exit.
        \\-o, --output <str>     Where to write the image.
        \\-w, --width <usize>    Width of the box in pixels.
        \\    --scale <f64>      Scale factor.
        \\-v, --verbose          Say what is done.
        \\    --retries <usize>  Attempts before giving up.
        \\-t, --tag <str>...     A tag to add.
        \\<str>...
        \\
    );
    var res = clap.parse(clap.Help, &params, clap.parsers.default, init.minimal.args, .{ .allocator = init.gpa }) catch {
        std.process.exit(1);
    };
    defer res.deinit();
    if (res.args.help != 0)
        return clap.helpToFile(init.io, .stdout(), clap.Help, &params, .{});
    std.debug.print("output={s} width={d} scale={d} verbose={d} retries={d}", .{
        res.args.output orelse "out.png", res.args.width orelse 640, res.args.scale orelse 1.0,
        res.args.verbose, res.args.retries orelse 0 });
    for (res.args.tag) |t| std.debug.print(" tag={s}", .{t});
    for (res.positionals[0]) |p| std.debug.print(" input={s}", .{p});
    std.debug.print("\n", .{});
}
