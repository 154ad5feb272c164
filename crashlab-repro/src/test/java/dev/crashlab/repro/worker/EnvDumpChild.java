package dev.crashlab.repro.worker;

/** A child main that prints its environment as {@code env:NAME=VALUE} lines, for {@link ChildEnvironmentTest}. */
public final class EnvDumpChild {

    private EnvDumpChild() {}

    public static void main(String[] args) {
        System.getenv().forEach((k, v) -> System.out.println("env:" + k + "=" + v));
        System.out.println("env-done");
    }
}
