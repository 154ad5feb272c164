package dev.crashlab.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.GpuMemoryHeld;
import dev.crashlab.fact.GpuProcess;
import dev.crashlab.fact.MemoryShortage;
import dev.crashlab.fact.PythonException;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.Parsers;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Which processes in an nvidia-smi snapshot are the job's, and what can be said when nothing names it. */
class GpuMemoryHoldersTest {

    private static final String SMI = "nvidia-smi.txt";
    private static final String LOG = "console.log";

    private static GpuProcess proc(Integer gpu, long pid, String name, long mib) {
        return new GpuProcess(gpu, pid, "C", name, mib, List.of(new SourceRef(SMI, 20 + pid % 7, name + " " + mib + "MiB")));
    }

    private static GpuDevice card(Integer index, long totalMiB) {
        return new GpuDevice(index, "NVIDIA RTX A5000", null, "00000000:65:00.0", totalMiB, null, null, null, null, null, null,
                null, null, null, null, null, null, null, List.of(), Map.of(), List.of(new SourceRef(SMI, 9, "| 24012MiB / 24564MiB |")));
    }

    private static MemoryShortage oom() {
        return new MemoryShortage("gpu", null, null, null, null, List.of(new SourceRef(LOG, 6, "RuntimeError: CUDA error: out of memory")));
    }

    private static PythonException traceback() {
        return new PythonException("RuntimeError", "CUDA error: out of memory", List.of(),
                List.of(new SourceRef(LOG, 6, "RuntimeError: CUDA error: out of memory")));
    }

    private static List<GpuMemoryHeld> held(List<Fact> facts, String... log) {
        List<TextLine> lines = new ArrayList<>();
        for (int i = 0; i < log.length; i++) {
            lines.add(new TextLine(LOG, i + 1, log[i]));
        }
        return GpuMemoryHolders.held(new DiagnosisInput(facts, lines));
    }

    @Test
    void theJobsPidFromTorchrunSplitsTheCardExactly() {
        List<GpuMemoryHeld> h = held(List.of(oom(), traceback(), card(0, 24564), proc(0, 31877, "/opt/venv/bin/python", 21460),
                proc(0, 48213, "/opt/venv/bin/python", 2540)), "RuntimeError: CUDA error: out of memory", "  exitcode  : 1 (pid: 48213)");
        assertThat(h).singleElement().satisfies(g -> {
            assertThat(g.basis()).isEqualTo("pid");
            assertThat(g.jobPid()).isEqualTo(48213L);
            assertThat(g.jobMiB()).isEqualTo(2540L);
            assertThat(g.othersMiB()).isEqualTo(21460L);
            assertThat(g.othersPercent()).isEqualTo(87);
            assertThat(g.others()).contains("pid 31877");
        });
    }

    @Test
    void theJobHoldingTheCardItselfSaysSo() {
        List<GpuMemoryHeld> h = held(List.of(oom(), card(0, 24564), proc(0, 5597, "/usr/bin/python3", 22980)),
                "(RayTrainWorker pid=5597) RuntimeError: CUDA error: out of memory");
        assertThat(h).singleElement().satisfies(g -> {
            assertThat(g.basis()).isEqualTo("pid");
            assertThat(g.jobPercent()).isEqualTo(93);
            assertThat(g.othersMiB()).isZero();
        });
    }

    @Test
    void pidsPyTorchNamesAsOtherProcessesAreNotTheJobs() {
        // PyTorch's OOM message names the other processes on the card ("Process N has ..."): never the job's own id
        List<GpuMemoryHeld> h = held(List.of(oom(), traceback(), card(0, 24564), proc(0, 31877, "/opt/venv/bin/python", 21460)),
                "torch.OutOfMemoryError: CUDA out of memory. Process 31877 has 20.96 GiB memory in use. Including non-PyTorch"
                        + " memory, this process has 2.48 GiB memory in use.");
        assertThat(h).as("one Python process and no id of the job's: it may be the job itself").isEmpty();
    }

    @Test
    void aSinglePythonProcessWithoutTheJobsIdSaysNothing() {
        assertThat(held(List.of(oom(), traceback(), card(0, 24576), proc(0, 19001, "/home/li/anaconda3/bin/python", 23790)),
                "RuntimeError: CUDA error: out of memory")).isEmpty();
    }

    @Test
    void anIdTheSnapshotDoesNotListProvesNothing() {
        // in a container nvidia-smi lists host ids: the job's 48 is not among them, and the one python may still be the job
        assertThat(held(List.of(oom(), traceback(), card(0, 24576), proc(0, 19001, "/opt/conda/bin/python", 23790)),
                "  exitcode  : 1 (pid: 48)")).isEmpty();
    }

    @Test
    void withoutAFailedAllocationNothingIsDerived() {
        // another program holds the card, but the job failed for another reason: the snapshot is no evidence of a shortage
        assertThat(held(List.of(new PythonException("ValueError", "bad shape", List.of(), List.of(new SourceRef(LOG, 1, "ValueError"))),
                card(0, 24564), proc(0, 31877, "/usr/local/bin/ollama", 21460), proc(0, 48213, "/usr/bin/python3", 900)),
                "  exitcode  : 1 (pid: 48213)")).isEmpty();
        // the same with the allocation failure is evidence (the control: the test above fails for the right reason)
        assertThat(held(List.of(oom(), card(0, 24564), proc(0, 31877, "/usr/local/bin/ollama", 21460), proc(0, 48213, "/usr/bin/python3", 900)),
                "  exitcode  : 1 (pid: 48213)")).singleElement().extracting(GpuMemoryHeld::basis).isEqualTo("pid");
    }

    @Test
    void anotherProgramBesideAPythonJobIsAnothersButSeveralGpusNeedTheJobsId() {
        List<GpuMemoryHeld> h = held(List.of(oom(), traceback(), card(0, 24564), proc(0, 2214, "/usr/local/bin/ollama", 20310),
                proc(0, 90533, "/home/mira/.venv/bin/python3", 3394)));
        assertThat(h).singleElement().satisfies(g -> {
            assertThat(g.basis()).isEqualTo("program");
            assertThat(g.othersMiB()).isEqualTo(20310L);
            assertThat(g.others()).doesNotContain("python3");
        });
        // two GPUs and no id: the job may have run on the other card
        assertThat(held(List.of(oom(), traceback(), card(0, 24564), card(1, 24564), proc(0, 2214, "/usr/local/bin/ollama", 20310),
                proc(1, 90533, "/home/mira/.venv/bin/python3", 3394)))).isEmpty();
    }

    @Test
    void twoPythonProcessesBoundWhatAnotherHeld() {
        List<GpuMemoryHeld> h = held(List.of(oom(), traceback(), card(0, 24576), proc(0, 7781, "/home/kt/miniconda3/bin/python", 13380),
                proc(0, 12044, "/home/kt/miniconda3/bin/python", 10710)));
        assertThat(h).singleElement().satisfies(g -> {
            assertThat(g.basis()).isEqualTo("count");
            assertThat(g.othersMiB()).as("all but the largest: at most one of them is the job").isEqualTo(10710L);
            assertThat(g.othersPercent()).isEqualTo(43);
        });
    }

    @Test
    void realSnapshotsBesideALogWithoutAnIdNeverClaimAnExactSplit() throws Exception {
        Path corpus = Path.of("../shared/corpus/nvidia-smi");
        Assumptions.assumeTrue(Files.isDirectory(corpus), "../shared/corpus not present: corpus tests skipped");
        ArtifactSniffer sniffer = new ArtifactSniffer();
        List<Path> files;
        try (Stream<Path> s = Files.walk(corpus)) {
            files = s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals("SOURCES.md")).sorted().toList();
        }
        int withProcesses = 0;
        for (Path file : files) {
            String rel = corpus.relativize(file).toString().replace('\\', '/');
            ArtifactType type = sniffer.sniff(rel, file);
            List<Fact> facts = new ArrayList<>(Parsers.parse(new ParseInput(rel, type, file)).facts());
            long compute = facts.stream().filter(f -> f instanceof GpuProcess p && p.usedMemoryMiB() != null
                    && (p.type() == null || p.type().contains("C"))).count();
            withProcesses += compute > 0 ? 1 : 0;
            facts.add(oom());
            facts.add(traceback());
            List<GpuMemoryHeld> h = held(facts, "RuntimeError: CUDA error: out of memory");
            assertThat(h).as(rel).noneMatch(g -> g.basis().equals("pid"));
            assertThat(h).as(rel + ": others never counts a Python interpreter by program")
                    .noneMatch(g -> g.basis().equals("program") && g.others().matches("(?i).*python[0-9.]*(\\.exe)? \\(pid.*"));
            if (compute <= 1) {
                assertThat(h).as(rel + ": one compute process and no id may be the job").noneMatch(g -> g.basis().equals("count"));
            }
            if (rel.equals("table/nvidia_gpu_exporter__linux-x86_64__nvidia-h200__590.48.01__load.txt")) {
                // two memhog and one gpu_burn, none a Python interpreter: 32,342 MiB of the H200's 143,771
                assertThat(h).singleElement().satisfies(g -> {
                    assertThat(g.basis()).isEqualTo("program");
                    assertThat(g.othersMiB()).isEqualTo(2566L + 1542 + 28234);
                    assertThat(g.othersPercent()).isLessThan(40);
                });
            }
        }
        assertThat(withProcesses).as("real snapshots that list compute processes").isGreaterThan(5);
    }
}
