package dev.crashlab.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Prints CrashLab's version and the Java runtime it runs on. */
@Command(name = "version", description = "Print CrashLab's version and the Java runtime.")
final class VersionCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        System.out.println("CrashLab " + CrashLabCli.version());
        System.out.println("Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", " + System.getProperty("java.home") + ")");
        return 0;
    }
}
