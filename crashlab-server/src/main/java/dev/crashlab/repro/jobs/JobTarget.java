package dev.crashlab.repro.jobs;

import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import java.util.Locale;

/**
 * Says which workers may run a job: {@code any}, {@code worker:<name>} (exactly that worker), or
 * {@code gpu:<model>} (a worker with a device whose name contains the text, case-insensitively, and
 * whose backend can run there).
 */
public record JobTarget(Kind kind, String value) {

    /** Kinds of target. */
    public enum Kind { ANY, WORKER, GPU }

    /** Any worker. */
    public static final JobTarget ANY = new JobTarget(Kind.ANY, "");

    /** Reads {@code any}, {@code worker:NAME} or {@code gpu:MODEL}; null or blank is {@code any}. */
    public static JobTarget parse(String text) {
        if (text == null || text.isBlank() || text.strip().equalsIgnoreCase("any")) {
            return ANY;
        }
        String t = text.strip();
        int colon = t.indexOf(':');
        String kind = colon < 0 ? "" : t.substring(0, colon).toLowerCase(Locale.ROOT);
        String value = colon < 0 ? "" : t.substring(colon + 1).strip();
        if (value.isEmpty() || !(kind.equals("worker") || kind.equals("gpu"))) {
            throw new IllegalArgumentException("target `" + t + "` is not `any`, `worker:<name>` or `gpu:<model>`");
        }
        if (value.length() > 200) {
            throw new IllegalArgumentException("target is longer than 200 characters");
        }
        return new JobTarget(kind.equals("worker") ? Kind.WORKER : Kind.GPU, value);
    }

    /** Returns whether the worker that asks may run a job with this target. */
    public boolean admits(ClaimRequest worker) {
        return switch (kind) {
            case ANY -> true;
            case WORKER -> value.equals(worker.worker());
            case GPU -> worker.devices().stream().anyMatch(d -> d.unavailableReason() == null && matches(d));
        };
    }

    private boolean matches(Device d) {
        return d.name() != null && d.name().toLowerCase(Locale.ROOT).contains(value.toLowerCase(Locale.ROOT));
    }

    @Override
    public String toString() {
        return kind == Kind.ANY ? "any" : kind.name().toLowerCase(Locale.ROOT) + ":" + value;
    }
}
