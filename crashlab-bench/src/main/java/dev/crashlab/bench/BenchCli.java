package dev.crashlab.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Runs the benchmark tools that scripts/bench drives (they live outside the product's jars). */
@Command(name = "crashlab-bench", mixinStandardHelpOptions = true,
        description = "CrashLab's benchmark tools (run them through scripts/bench).",
        subcommands = {DiagnoseBenchCommand.class, CrashesBenchCommand.class, IngestBenchCommand.class, CommandLine.HelpCommand.class})
public final class BenchCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCli()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }
}
