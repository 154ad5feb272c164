package dev.crashlab.repro.worker;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Lists the states of a reproduction job, from queued to one of the final ones.
 *
 * <p>NOTE: JSON spells them in lower case with hyphens ({@code timed-out}); the database stores the
 * constant's name. {@code claimed} means a worker took the job and has not yet reported its child running.
 */
public enum JobState {
    QUEUED, CLAIMED, RUNNING, PASSED, FAILED, CRASHED, TIMED_OUT, CANCELLED;

    /** Returns whether no worker will touch a job in this state again. */
    public boolean isFinal() {
        return ordinal() >= PASSED.ordinal();
    }

    /** Returns whether a worker holds a job in this state under a lease. */
    public boolean isLeased() {
        return this == CLAIMED || this == RUNNING;
    }

    /** The JSON spelling. */
    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Reads the JSON spelling (or the constant's name). */
    @JsonCreator
    public static JobState of(String wire) {
        return valueOf(wire.strip().toUpperCase(Locale.ROOT).replace('-', '_'));
    }
}
