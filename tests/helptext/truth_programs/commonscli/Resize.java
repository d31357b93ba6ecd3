import org.apache.commons.cli.*;

public class Resize {
    public static void main(String[] args) throws Exception {
        Options options = new Options();
        options.addOption(Option.builder("o").longOpt("output").hasArg().argName("FILE").desc("Where to write the image").build());
        options.addOption(Option.builder("w").longOpt("width").hasArg().argName("N").desc("Width of the box in pixels").build());
        options.addOption(Option.builder().longOpt("scale").hasArg().desc("Scale factor").build());
        options.addOption("v", "verbose", false, "Say what is done");
        options.addOption(Option.builder().longOpt("retries").hasArg().required().desc("Attempts before giving up").build());
        options.addOption(Option.builder("t").longOpt("tag").hasArgs().desc("A tag to add").build());
        options.addOption("h", "help", false, "Print this help");
        CommandLine line;
        try {
            if (args.length > 0 && args[0].equals("--help")) {
                new HelpFormatter().printHelp("resize [options] IMAGE...", "Resizes images to fit a box.", options, "");
                return;
            }
            line = new DefaultParser().parse(options, args);
        } catch (ParseException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        StringBuilder out = new StringBuilder();
        out.append("output=").append(line.getOptionValue("output", "out.png"));
        out.append(" width=").append(line.getOptionValue("width", "640"));
        out.append(" scale=").append(line.getOptionValue("scale", "1"));
        out.append(" verbose=").append(line.hasOption("verbose"));
        out.append(" retries=").append(line.getOptionValue("retries"));
        String[] tags = line.getOptionValues("tag");
        out.append(" tags=").append(tags == null ? 0 : tags.length);
        for (String a : line.getArgs()) out.append(" input=").append(a);
        System.out.println(out);
    }
}
