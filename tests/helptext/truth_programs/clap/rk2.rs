use clap::{ArgAction, Parser, ValueEnum};

#[derive(Clone, Debug, ValueEnum)]
enum Shape {
    /// A round thing
    Circle,
    /// Four equal sides
    Square,
    /// Three sides
    Triangle,
}

/// Draw shapes.
///
/// A longer description of how shapes are drawn, which only the long
/// help shows.
#[derive(Parser, Debug)]
#[command(name = "rk2", version = "1.2.3", about, long_about)]
struct Cli {
    /// Name of the drawing (required)
    #[arg(long)]
    name: String,
    /// Output file, must be written with '='
    #[arg(long, require_equals = true, value_name = "FILE")]
    out: Option<String>,
    /// Points: between one and three
    #[arg(long, num_args = 1..=3, value_name = "PT")]
    points: Vec<i32>,
    /// Optional label; bare flag means "auto"
    #[arg(long, num_args = 0..=1, default_missing_value = "auto")]
    label: Option<String>,
    /// Stroke width
    #[arg(short = 'w', long, default_value = "1.0")]
    width: f32,
    /// Don't fill
    #[arg(long = "no-fill", action = ArgAction::SetFalse)]
    fill: bool,
    /// Shape to draw
    #[arg(value_enum)]
    shape: Shape,
    /// How many copies
    #[arg(default_value_t = 1)]
    copies: u16,
}

fn main() {
    let cli = Cli::parse();
    println!("{:?}", cli);
}
