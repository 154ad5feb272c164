package dev.crashlab.parse;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A log collector's or launcher's prefix comes off a line; the program's own text stays as it was. */
class CollectorPrefixTest {

    @Test
    void takesOffTheCollectorsPrefix() {
        assertThat(CollectorPrefix.strip("trainer-1  | Killed")).isEqualTo("Killed");
        assertThat(CollectorPrefix.strip("home-assistant   | RuntimeError: x")).isEqualTo("RuntimeError: x");
        assertThat(CollectorPrefix.strip("2025-03-14T09:00:01.123456789Z Killed")).isEqualTo("Killed");
        assertThat(CollectorPrefix.strip("2025-03-14 09:00:01,123 Killed")).isEqualTo("Killed");
        assertThat(CollectorPrefix.strip("[rank0]: RuntimeError: CUDA error: out of memory"))
                .isEqualTo("RuntimeError: CUDA error: out of memory");
        assertThat(CollectorPrefix.strip("[default3]:Killed")).isEqualTo("Killed");
        // a compose tag and a time stamp together (docker compose logs -t)
        assertThat(CollectorPrefix.strip("svc-1  | 2025-03-14T09:00:01.000Z Killed")).isEqualTo("Killed");
    }

    @Test
    void leavesTheProgramsOwnLinesAlone() {
        for (String line : new String[] {"Killed", "2022-11-03 10:00:00.123456: E tensorflow/core/x.cc:1] msg",
            "  File \"/a/b.py\", line 3, in <module>", "| NVIDIA-SMI 535.54.03 |", "[1]    4021 killed     python a.py",
            "|   0  NVIDIA GeForce RTX 3090    On   |", "trainer-1  | "}) {
            assertThat(CollectorPrefix.strip(line)).as(line).isSameAs(line);
        }
    }
}
