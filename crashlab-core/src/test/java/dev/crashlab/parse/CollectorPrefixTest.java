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
        // a Kubernetes container's log file (CRI): time stamp, stream, full-line tag
        assertThat(CollectorPrefix.strip("2025-03-14T09:00:01.123456789Z stderr F RuntimeError: CUDA error: out of memory"))
                .isEqualTo("RuntimeError: CUDA error: out of memory");
        assertThat(CollectorPrefix.strip("2025-03-14T09:00:01.123456789+00:00 stdout F Killed")).isEqualTo("Killed");
        // the systemd journal: date, host, program[pid]
        assertThat(CollectorPrefix.strip("Nov  9 10:00:01 gpu-node-07 python3[4242]: Killed")).isEqualTo("Killed");
        assertThat(CollectorPrefix.strip("Mar 14 09:00:01 dgx01 torchrun[91]:   File \"a.py\", line 3, in <module>"))
                .isEqualTo("  File \"a.py\", line 3, in <module>");
        // a journal's or a container runtime's prefix before the program's own glog line: the collector's part goes
        assertThat(CollectorPrefix.strip("Nov  9 10:00:01 gpu-node-07 python3[4242]: W0104 13:46:27.896000 80302 run.py:792] x"))
                .isEqualTo("W0104 13:46:27.896000 80302 run.py:792] x");
    }

    @Test
    void leavesTheProgramsOwnLinesAlone() {
        for (String line : new String[] {"Killed", "2022-11-03 10:00:00.123456: E tensorflow/core/x.cc:1] msg",
            "  File \"/a/b.py\", line 3, in <module>", "| NVIDIA-SMI 535.54.03 |", "[1]    4021 killed     python a.py",
            "|   0  NVIDIA GeForce RTX 3090    On   |", "trainer-1  | ",
            // the kernel's own journal line keeps its "kernel:" (rules read it); a CRI line with nothing after its tag
            "Nov 29 10:00:01 gpu-node-07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
            "2025-03-14T09:00:01.123456789Z stderr F ", "W0104 13:46:27.896000 80302 torch/distributed/run.py:792]",
            // a glog / absl line is the program's own logger's: its level letter is read
            "W0104 13:46:27.896000 80302 torch/distributed/run.py:792] Setting OMP_NUM_THREADS"}) {
            assertThat(CollectorPrefix.strip(line)).as(line).isSameAs(line);
        }
    }
}
