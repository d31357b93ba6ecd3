// A clap 4 program whose options take several words each time (num_args = 1..), at the
// program's level above its commands; built natively with Debian's clap 4.0.32 (librust-clap-dev,
// cargo offline over /usr/share/cargo/registry), it prints what it parsed. Its helps are
// tests/helptext/framework_texts/clap-4.0.32-cg.
use clap::{Parser, Subcommand, Args};
/// A test tool
#[derive(Parser, Debug)]
#[command(name = "cg", version, about = "A test tool")]
struct Cli {
    /// Tags to apply
    #[arg(long, num_args = 1..)]
    tags: Vec<String>,
    /// Be loud
    #[arg(short, long)]
    verbose: bool,
    #[command(subcommand)]
    command: Cmd,
}
#[derive(Subcommand, Debug)]
enum Cmd {
    /// Database things
    Db(DbArgs),
    /// Run something
    Run {
        /// Files to run
        #[arg(long, num_args = 1..)]
        files: Vec<String>,
        /// The job name
        name: String,
    },
}
#[derive(Args, Debug)]
struct DbArgs {
    /// Database URL
    #[arg(long)]
    url: String,
    /// Pool size
    #[arg(long, default_value_t = 1)]
    pool: u32,
    #[command(subcommand)]
    command: DbCmd,
}
#[derive(Subcommand, Debug)]
enum DbCmd {
    /// Migrate the database
    Migrate {
        /// Dry run
        #[arg(long)]
        dry_run: bool,
        /// Migration name
        name: String,
    },
}
fn main() {
    let cli = Cli::parse();
    println!("{:?}", cli);
}
