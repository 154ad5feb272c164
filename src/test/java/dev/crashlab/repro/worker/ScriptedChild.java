package dev.crashlab.repro.worker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Misbehaves on purpose in a real child JVM, as a replay may: the spec's {@code "test_child"} field
 * says how ({@code pass}, {@code fail}, {@code halt-134}, {@code hang}, {@code progress-then-hang},
 * {@code no-result}, {@code chatty}). Speaks {@link ChildProtocol} like the real replay child.
 */
public final class ScriptedChild {

    private static final Pattern BEHAVIOUR = Pattern.compile("\"test_child\"\\s*:\\s*\"([a-z0-9-]+)\"");

    private ScriptedChild() {}

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
                if (behaviour.equals("progress-then-hang")) {
                    System.out.println(ChildProtocol.PROGRESS_PREFIX + "layer 1/2 forward");
                    System.out.flush();
                }
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
