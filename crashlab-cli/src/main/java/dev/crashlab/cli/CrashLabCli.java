package dev.crashlab.cli;


import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Runs CrashLab's offline commands on the plain-Java core, without a server or a database.
 *
 * <p>NOTE: {@code serve} is not here: {@code bin/crashlab serve} starts the Quarkus application itself.
 */
@Command(
        name = "crashlab",
        mixinStandardHelpOptions = true,
        // every command inherits --help and --version: `bin/crashlab <command> --help` is what the docs point to
        scope = CommandLine.ScopeType.INHERIT,
        versionProvider = CrashLabCli.Version.class,
        description = "Diagnoses crashed GPU deep-learning jobs from their crash bundles.",
        subcommands = {VersionCommand.class, InspectCommand.class, FactsCommand.class, EvtxCommand.class,
                KbCommand.class, DiagnoseCommand.class, EvalCommand.class, ReproCommand.class,
                WorkerCommand.class,
                CommandLine.HelpCommand.class})
public final class CrashLabCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** Builds the command line (tests drive it without exiting the JVM). */
    public static CommandLine commandLine() {
        return new CommandLine(new CrashLabCli()).setCaseInsensitiveEnumValuesAllowed(true);
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
