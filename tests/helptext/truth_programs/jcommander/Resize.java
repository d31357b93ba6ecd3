import com.beust.jcommander.JCommander;
import com.beust.jcommander.Parameter;
import java.util.ArrayList;
import java.util.List;

public class Resize {
    @Parameter(description = "images to resize")
    List<String> inputs = new ArrayList<>();
    @Parameter(names = {"--output", "-o"}, description = "Where to write the image")
    String output = "out.png";
    @Parameter(names = {"--width", "-w"}, description = "Width of the box in pixels")
    int width = 640;
    @Parameter(names = "--scale", description = "Scale factor")
    Double scale;
    @Parameter(names = {"--verbose", "-v"}, description = "Say what is done")
    boolean verbose = false;
    @Parameter(names = "--retries", description = "Attempts before giving up", required = true)
    int retries;
    @Parameter(names = {"--tag", "-t"}, description = "A tag to add")
    List<String> tags = new ArrayList<>();
    // No description: JCommander prints a blank line under it, which ended the list for the reader.
    @Parameter(names = {"--help", "-h"}, help = true)
    boolean help;

    public static void main(String[] argv) {
        Resize r = new Resize();
        JCommander jc = JCommander.newBuilder().addObject(r).programName("resize").build();
        jc.parse(argv);
        if (r.help) { jc.usage(); return; }
        System.out.println("output=" + r.output + " width=" + r.width + " verbose=" + r.verbose + " retries=" + r.retries + " tags=" + r.tags + " inputs=" + r.inputs);
    }
}
