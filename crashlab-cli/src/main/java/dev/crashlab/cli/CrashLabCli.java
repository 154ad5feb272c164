package dev.crashlab.cli;


import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Runs CrashLab's offline commands on the plain-Java core, without a server (and without a database, except
 * {@code index verify}, which compares a server's index folder with its database).
 *
 * <p>NOTE: {@code serve} is not here: {@code bin/crashlab serve} starts the Quarkus application itself.
 */
@Command(
        name = "crashlab",
        mixinStandardHelpOptions = true,
        // every command inherits --help and --version: `bin/crashlab <command> --help` is what the docs point to
        scope = CommandLine.ScopeType.INHERIT,
        versionProvider = CrashLabCli.Version.class,
        description = "Diagnoses crashed GPU deep-learning jobs from their crash bundles.")
public final class CrashLabCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /**
     * The commands, in the order {@code help} lists them. Each is built only when the command line needs it:
     * picocli reads a command's annotations by reflection, and building all of them costs a short command (one
     * {@code evtx} file) about a fifth of its run.
     */
    private static final List<String> COMMANDS =
            List.of("version", "inspect", "facts", "evtx", "kb", "diagnose", "eval", "repro", "worker", "index", "help");

    // a switch, not a map of method references: the JDK's AOT cache (bin/crashlab) archives this class, and
    // JDK 25.0.3 fails to write a cache holding lambdas kept in a static field
    private static Object command(String name) {
        return switch (name) {
            case "version" -> new VersionCommand();
            case "inspect" -> new InspectCommand();
            case "facts" -> new FactsCommand();
            case "evtx" -> new EvtxCommand();
            case "kb" -> new KbCommand();
            case "diagnose" -> new DiagnoseCommand();
            case "eval" -> new EvalCommand();
            case "repro" -> new ReproCommand();
            case "worker" -> new WorkerCommand();
            case "index" -> new IndexCommand();
            case "help" -> new CommandLine.HelpCommand();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        if (args.length > 1 && args[0].equals("evtx")) {
            // the one-file fast path (scripts/bench evtx); anything it does not know goes to picocli below
            Integer status = EvtxCommand.runPlain(List.of(args).subList(1, args.length),
                    printWriter(System.out, "sun.stdout.encoding"), printWriter(System.err, "sun.stderr.encoding"));
            if (status != null) {
                System.exit(status);
            }
        }
        System.exit(commandLine(args.length > 0 ? args[0] : null).execute(args));
    }

    // what picocli's CommandLine.getOut()/getErr() build by default: the same encoding (its property, else the
    // default charset), buffered, flushed at each println
    private static PrintWriter printWriter(OutputStream stream, String encodingProperty) {
        String name = System.getProperty(encodingProperty);
        Charset cs = Charset.defaultCharset();
        if (name != null) {
            try {
                cs = Charset.forName(name.equalsIgnoreCase("cp65001") ? "UTF-8" : name);
            } catch (IllegalArgumentException e) {
                // picocli falls back to the default charset too
            }
        }
        return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, cs)), true);
    }

    /** Builds the whole command line (tests drive it without exiting the JVM). */
    public static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * Builds the command line with only {@code first} when it names a command other than {@code help} (what that
     * command sees is the same: its options, the inherited {@code --help}/{@code --version}); with every command
     * otherwise (no argument, an option, help, or a name that is no command, so that picocli's own message and
     * suggestions stay).
     */
    static CommandLine commandLine(String first) {
        CommandLine cl = new CommandLine(new CrashLabCli());
        boolean one = first != null && !first.equals("help") && COMMANDS.contains(first);
        for (String name : COMMANDS) {
            if (!one || name.equals(first)) {
                cl.addSubcommand(name, command(name));
            }
        }
        // after the subcommands: the setting reaches only the commands present when it is set
        return cl.setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** Returns CrashLab's version, as the build stamped it. */
    public static String version() {
        return dev.crashlab.AppVersion.version();
    }

    /** Supplies {@code --version}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"CrashLab " + version(), "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"};
        }
    }
}
