use gumdrop::Options;

#[derive(Debug, Options)]
struct Top {
    #[options(help = "print help message")]
    help: bool,
    #[options(help = "be verbose", count)]
    verbose: u32,
    #[options(help = "use this config file", meta = "PATH")]
    config: Option<String>,
    #[options(command)]
    command: Option<Cmd>,
}

#[derive(Debug, Options)]
enum Cmd {
    #[options(help = "copy things")]
    Copy(CopyOpts),
    #[options(help = "resize an image")]
    Resize(ResizeOpts),
}

#[derive(Debug, Options)]
struct CopyOpts {
    #[options(help = "print help message")]
    help: bool,
    #[options(help = "number of retries", default = "3")]
    retries: u32,
    #[options(help = "offset in bytes, may be negative", no_short)]
    offset: i64,
    #[options(help = "include pattern (repeatable)", meta = "GLOB")]
    include: Vec<String>,
    #[options(required, help = "destination directory", meta = "DIR")]
    dest: String,
    #[options(help = "do not ask", short = "y")]
    yes: bool,
    #[options(free, help = "source files")]
    sources: Vec<String>,
}

#[derive(Debug, Options)]
struct ResizeOpts {
    #[options(help = "print help message")]
    help: bool,
    #[options(help = "width and height", meta = "W H")]
    size: Option<(u32, u32)>,
    #[options(help = "quality factor", meta = "Q")]
    quality: Option<f32>,
    #[options(free, required, help = "image to resize")]
    image: String,
}

fn main() {
    let opts = Top::parse_args_default_or_exit();
    println!("{:?}", opts);
}
