use argh::FromArgs;

#[derive(FromArgs, Debug)]
/// Archive helper built with argh.
struct Top {
    /// print more detail
    #[argh(switch, short = 'v')]
    verbose: bool,
    /// configuration file to read
    #[argh(option)]
    config: Option<String>,
    #[argh(subcommand)]
    cmd: Cmd,
}

#[derive(FromArgs, Debug)]
#[argh(subcommand)]
enum Cmd { Add(Add), Rm(Rm), Remote(Remote) }

#[derive(FromArgs, Debug)]
/// Add files to the archive.
#[argh(subcommand, name = "add")]
struct Add {
    /// overwrite existing entries
    #[argh(switch, short = 'f')]
    force: bool,
    /// how many copies to keep
    #[argh(option, short = 'n', default = "1")]
    count: u32,
    /// compression level between -5 and 5
    #[argh(option, default = "0")]
    level: i32,
    /// scale factor
    #[argh(option)]
    scale: Option<f64>,
    /// tag to attach (may be repeated)
    #[argh(option)]
    tag: Vec<String>,
    /// files to add
    #[argh(positional)]
    paths: Vec<String>,
}

#[derive(FromArgs, Debug)]
/// Remove an entry.
#[argh(subcommand, name = "rm")]
struct Rm {
    /// how deep to recurse
    #[argh(option)]
    depth: i32,
    /// entry to remove
    #[argh(positional)]
    target: String,
    /// optional backup name
    #[argh(positional)]
    backup: Option<String>,
}

#[derive(FromArgs, Debug)]
/// Manage remotes.
#[argh(subcommand, name = "remote")]
struct Remote {
    #[argh(subcommand)]
    cmd: RemoteCmd,
}

#[derive(FromArgs, Debug)]
#[argh(subcommand)]
enum RemoteCmd { Show(Show), Prune(Prune) }

#[derive(FromArgs, Debug)]
/// Show one remote.
#[argh(subcommand, name = "show")]
struct Show {
    /// print as JSON
    #[argh(switch)]
    json: bool,
    /// remote name
    #[argh(positional)]
    name: String,
}

#[derive(FromArgs, Debug)]
/// Prune stale remotes.
#[argh(subcommand, name = "prune")]
struct Prune {
    /// only show what would be done
    #[argh(switch, short = 'n')]
    dry_run: bool,
}

fn main() {
    let t: Top = argh::from_env();
    println!("{:?}", t);
}
