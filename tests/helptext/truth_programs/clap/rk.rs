use clap::{ArgAction, ArgGroup, Args, Parser, Subcommand, ValueEnum};

/// Build and run rocket kits
#[derive(Parser, Debug)]
#[command(name = "rk", version, about, long_about = None)]
struct Cli {
    /// Configuration file
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<String>,
    /// Say less
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Build a package
    #[command(visible_alias = "mk")]
    Build(BuildArgs),
    /// Run a script
    Run(RunArgs),
    /// Manage remotes
    #[command(subcommand)]
    Remote(RemoteCmd),
    /// Internal use only
    #[command(hide = true)]
    Secret,
}

#[derive(Clone, Debug, ValueEnum)]
enum Mode { Debug, Release, ProfileGuided }

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("kind").required(true).args(["lib", "bin"])))]
struct BuildArgs {
    /// Build mode
    #[arg(long, value_enum, default_value_t = Mode::Release)]
    mode: Mode,
    /// Parallel jobs
    #[arg(short, long, default_value_t = 4)]
    jobs: u32,
    /// Optimisation level
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: Option<u8>,
    /// Target triple (repeatable)
    #[arg(short, long, action = ArgAction::Append)]
    target: Vec<String>,
    /// Features to enable, comma separated
    #[arg(short = 'F', long, num_args = 1.., value_delimiter = ',')]
    features: Vec<String>,
    /// Image size
    #[arg(long, num_args = 2, value_names = ["W", "H"])]
    size: Vec<u32>,
    /// API token
    #[arg(long, env = "RK_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Timeout in seconds
    #[arg(long, default_value_t = 2.5)]
    timeout: f64,
    /// More output (-vv for even more)
    #[arg(short, long, action = ArgAction::Count)]
    verbose: u8,
    /// Build the library
    #[arg(long)]
    lib: bool,
    /// Build the named binary
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,
    /// Package to build
    package: String,
    /// Extra arguments passed to the compiler
    #[arg(last = true)]
    extra: Vec<String>,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// When to colour
    #[arg(long, value_name = "WHEN", num_args = 0..=1, require_equals = true, default_missing_value = "always", default_value = "auto", value_parser = ["always", "auto", "never"])]
    color: String,
    /// Environment entries KEY=VALUE
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
    envs: Vec<String>,
    /// Dry run
    #[arg(short = 'n', long)]
    dry_run: bool,
    /// Script to run
    script: String,
    /// Arguments for the script
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum RemoteCmd {
    /// Add a remote
    Add {
        /// Remote name
        name: String,
        /// Remote URL
        url: String,
        /// Make it the default
        #[arg(long)]
        default: bool,
    },
    /// Remove a remote
    #[command(alias = "rm")]
    Remove {
        /// Remote names
        #[arg(required = true)]
        names: Vec<String>,
    },
}

fn main() {
    let cli = Cli::parse();
    println!("{:?}", cli);
    let argv: Vec<String> = std::env::args().collect();
    println!("ARGV {:?}", argv);
}
