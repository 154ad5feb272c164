package dev.crashlab.repro.worker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Misbehaves on purpose in a real child JVM, as a replay may: the name of the spec's first layer,
 * {@code test-child:<behaviour>}, says how ({@code pass}, {@code fail}, {@code halt-134}, {@code hang}, {@code progress-then-hang},
 * {@code no-result}, {@code chatty}). Speaks {@link ChildProtocol} like the real replay child.
 */
public final class ScriptedChild {

    private static final Pattern BEHAVIOUR = Pattern.compile("\"name\"\\s*:\\s*\"test-child:([a-z0-9-]+)\"");

    private ScriptedChild() {}

    /** A valid one-layer spec (the reproduction JSON format) that asks this child for {@code behaviour}. */
    public static String spec(String behaviour) {
        return "{\"format\":1,\"batch\":1,\"dtype\":\"float32\",\"layout\":\"NCHW\",\"mode\":\"inference\","
                + "\"optimizer\":\"sgd\",\"layers\":[{\"name\":\"test-child:" + behaviour + "\",\"in_channels\":1,"
                + "\"out_channels\":1,\"input\":[4,4],\"kernel\":[3,3]}]}";
    }

    public static void main(String[] args) throws Exception {
        List<String> a = List.of(args);
        Path spec = Path.of(a.get(a.indexOf(ChildProtocol.SPEC) + 1));
        Path result = Path.of(a.get(a.indexOf(ChildProtocol.RESULT) + 1));
        Matcher m = BEHAVIOUR.matcher(Files.readString(spec));
        String behaviour = m.find() ? m.group(1) : "pass";
        System.out.println("scripted child " + ProcessHandle.current().pid() + ": " + behaviour + " (backend "
                + a.get(a.indexOf(ChildProtocol.BACKEND) + 1) + ")");
        System.out.flush();
        switch (behaviour) {
            case "pass" -> Files.writeString(result, "{\"status\":\"passed\",\"backend\":\"cpu\",\"reason\":\"all layers ran\",\"layers\":[]}");
            case "fail" -> Files.writeString(result, "{\"status\":\"failed\",\"backend\":\"cpu\",\"reason\":\"out of memory in conv1\",\"layers\":[]}");
            case "halt-134" -> {
                System.err.println("fatal: simulated abort in native code");
                System.err.flush();
                Runtime.getRuntime().halt(134);
            }
            case "hang", "progress-then-hang" -> {
                // the pid as progress: a test learns it through the API and kills the child with it
                System.out.println(ChildProtocol.PROGRESS_PREFIX + "pid " + ProcessHandle.current().pid());
                if (behaviour.equals("progress-then-hang")) {
                    System.out.println(ChildProtocol.PROGRESS_PREFIX + "layer 1/2 forward");
                }
                System.out.flush();
                System.out.println("ready");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            case "no-result" -> System.out.println("exiting without a result");
            case "chatty" -> {
                for (int i = 0; i < 5000; i++) {
                    System.out.println("line " + i + " of a long log, padded to make it longer than the tail keeps");
                }
                Files.writeString(result, "{\"status\":\"passed\",\"reason\":\"chatty\"}");
            }
            default -> throw new IllegalArgumentException("unknown behaviour " + behaviour);
        }
    }
}
