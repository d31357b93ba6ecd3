use gumdrop::Options;

/// Resizes images to fit a box.
#[derive(Debug, Options)]
struct ResizeOptions {
    #[options(help = "print help message")]
    help: bool,
    #[options(help = "where to write the image", meta = "FILE", default = "out.png")]
    output: String,
    #[options(help = "width of the box in pixels", default = "640")]
    width: u32,
    #[options(no_short, help = "scale factor")]
    scale: Option<f64>,
    #[options(help = "say what is done")]
    verbose: bool,
    #[options(no_short, required, help = "attempts before giving up")]
    retries: u32,
    #[options(help = "a tag to add")]
    tag: Vec<String>,
    #[options(free, help = "images to resize")]
    inputs: Vec<String>,
}

fn main() {
    let opts = ResizeOptions::parse_args_default_or_exit();
    println!("{:?}", opts);
}
