import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

// A subcommand too: the usage then ends "<inputs>... [COMMAND]", and the operands before it were lost.
@Command(name = "resize", mixinStandardHelpOptions = true, version = "resize 1.0",
         description = "Resizes images to fit a box.", showDefaultValues = true, subcommands = Resize.Info.class)
public class Resize implements Callable<Integer> {
    @Command(name = "info", description = "Says what an image holds.")
    static class Info implements Callable<Integer> {
        @Parameters(description = "The image.")
        String image;

        public Integer call() {
            System.out.println("info=" + image);
            return 0;
        }
    }

    enum Mode { fit, fill, crop }

    @Option(names = {"-o", "--output"}, description = "Where to write the image.")
    String output = "out.png";
    @Option(names = {"-w", "--width"}, description = "Width of the box in pixels.")
    int width = 640;
    @Option(names = "--scale", description = "Scale factor.")
    Double scale;
    @Option(names = {"-v", "--verbose"}, description = "Say what is done.")
    boolean verbose;
    @Option(names = {"-m", "--mode"}, description = "How to fit the box. Valid values: ${COMPLETION-CANDIDATES}.")
    Mode mode = Mode.fit;
    @Option(names = {"-r", "--retries"}, required = true, description = "Attempts before giving up.")
    int retries;
    @Option(names = {"-t", "--tag"}, description = "A tag to add.")
    List<String> tags;
    @Option(names = "--color", negatable = true, description = "Colour the output.")
    boolean color;
    @Option(names = "--box", arity = "2", description = "Width and height of the box.")
    int[] box;
    @Parameters(arity = "1..*", description = "Images to resize.")
    List<String> inputs;

    public Integer call() {
        System.out.println("output=" + output + " width=" + width + " scale=" + scale + " verbose=" + verbose + " mode=" + mode
                + " retries=" + retries + " tags=" + tags + " color=" + color + " box=" + java.util.Arrays.toString(box)
                + " inputs=" + inputs);
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Resize()).execute(args));
    }
}
