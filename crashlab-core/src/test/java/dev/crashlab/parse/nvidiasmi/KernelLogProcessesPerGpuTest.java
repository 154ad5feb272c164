package dev.crashlab.parse.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.HostOomKill;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.XidEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The number of different processes that faulted on one GPU, set on each Xid event once the log is read. */
class KernelLogProcessesPerGpuTest {

    private static XidEvent xid(int code, String bus, Long pid) {
        return new XidEvent(code, bus, pid, null, null, "pid=" + pid, null,
                List.of(new SourceRef("dmesg.txt", 1, "NVRM: Xid (PCI:" + bus + "): " + code)));
    }

    private static Integer count(Fact f) {
        return ((XidEvent) f).processesOnGpu();
    }

    @Test
    void countsDistinctProcessesPerBusId() {
        List<Fact> out = KernelLogParser.withProcessesPerGpu(List.of(
                xid(31, "0000:db:00", 13641L), xid(31, "0000:db:00", 14323L), xid(31, "0000:DB:00", 33275L),
                xid(31, "0000:db:00", 13641L), xid(43, "0000:3d:00", 35521L)));
        assertThat(out).extracting(KernelLogProcessesPerGpuTest::count).containsExactly(3, 3, 3, 3, 1);
    }

    @Test
    void oneProcessFaultingAgainIsOne() {
        List<Fact> out = KernelLogParser.withProcessesPerGpu(List.of(xid(31, "0000:41:00", 22714L), xid(13, "0000:41:00", 22714L)));
        assertThat(out).extracting(KernelLogProcessesPerGpuTest::count).containsExactly(1, 1);
    }

    @Test
    void eventsWithoutAProcessAreNotCountedNorCounted() {
        HostOomKill kill = new HostOomKill(99L, "python", "detail", List.of(new SourceRef("dmesg.txt", 2, "Killed process 99")));
        List<Fact> out = KernelLogParser.withProcessesPerGpu(List.of(
                xid(79, "0000:3b:00", 0L), xid(13, "0000:3b:00", null), xid(31, "0000:3b:00", 500L), kill));
        assertThat(count(out.get(0))).isNull();
        assertThat(count(out.get(1))).isNull();
        assertThat(count(out.get(2))).isEqualTo(1);
        assertThat(out.get(3)).isSameAs(kill);
    }
}
