use argh::FromArgs;

/// Resizes images to fit a box.
#[derive(FromArgs, Debug)]
struct Resize {
    /// where to write the image
    #[argh(option, short = 'o', default = "String::from(\"out.png\")")]
    output: String,
    /// width of the box in pixels
    #[argh(option, short = 'w', default = "640")]
    width: u32,
    /// scale factor
    #[argh(option)]
    scale: Option<f64>,
    /// say what is done
    #[argh(switch, short = 'v')]
    verbose: bool,
    /// attempts before giving up
    #[argh(option)]
    retries: u32,
    /// a tag to add
    #[argh(option, short = 't')]
    tag: Vec<String>,
    /// images to resize
    #[argh(positional)]
    inputs: Vec<String>,
}

fn main() {
    let r: Resize = argh::from_env();
    println!("{:?}", r);
}
