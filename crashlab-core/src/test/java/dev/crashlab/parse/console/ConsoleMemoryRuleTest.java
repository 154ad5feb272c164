package dev.crashlab.parse.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.MemoryShortage;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.sniff.ArtifactType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bare {@code Killed} is a host memory shortage only after the log reported memory trouble, not a healthy start-up. */
class ConsoleMemoryRuleTest {

    static final String CREATED = "2026-11-20 14:21:07.802113: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1510] Created device "
            + "/job:localhost/replica:0/task:0/device:GPU:0 with 6126 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 2070, "
            + "pci bus id: 0000:01:00.0, compute capability: 7.5\n";
    static final String FOUND = "2026-11-20 14:21:07.700001: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1433] Found device 0 with properties:\n"
            + "name: GeForce GTX 1080 major: 6 minor: 1 memoryClockRate(GHz): 1.7335\n"
            + "totalMemory: 7.92GiB freeMemory: 7.80GiB\n";

    @TempDir
    Path tmp;

    @Test
    void aHealthyCreatedDeviceLineDoesNotMakeALaterKilledAMemoryShortage() throws Exception {
        assertThat(shortages(CREATED + "Epoch 1/10\n  3/500 [....] - loss: 0.69\nKilled\n")).isEmpty();
        assertThat(shortages(FOUND + CREATED + "Epoch 1/10\nKilled\n")).isEmpty();
    }

    @Test
    void aKilledAfterMemoryTroubleIsStillAHostShortage() throws Exception {
        String trouble = "2026-11-20 14:22:00.100000: W tensorflow/core/framework/cpu_allocator_impl.cc:82] Allocation of "
                + "4294967296 exceeds 10% of free system memory.\n";
        assertThat(shortages(CREATED + trouble + "Killed\n")).singleElement()
                .satisfies(s -> assertThat(s.where()).isEqualTo("host"));
    }

    @Test
    void paddlesAllocatorMessageIsAGpuShortageWithTheRequestAndWhatWasFree() throws Exception {
        // the form of paddle/fluid/memory/allocation/cuda_allocator.cc (2.x), with and without the allocated part
        assertThat(shortages("Out of memory error on GPU 1. Cannot allocate 2.500000GB memory on GPU 1, 9.800000GB memory has "
                + "been allocated and available memory is only 310.250000MB.\n")).singleElement().satisfies(s -> {
                    assertThat(s.where()).isEqualTo("gpu");
                    assertThat(s.requested()).isEqualTo("2.500000GB");
                    assertThat(s.free()).isEqualTo("310.250000MB");
                    assertThat(s.detail()).contains("GPU 1");
                });
        assertThat(shortages("Out of memory error on GPU 0. Cannot allocate 512.000000MB memory on GPU 0, available memory is only "
                + "96.500000MB.\n\nPlease check whether there is any other process using GPU 0.\n")).singleElement()
                .satisfies(s -> assertThat(s.requested()).isEqualTo("512.000000MB"));
    }

    @Test
    void pytorch1sMessageSaysWhenMostOfTheCardWasHeldOutsideItsAllocator() throws Exception {
        // 15.75 GiB card, 600 MiB reserved by PyTorch, 20 MiB free: about 15.1 GiB held elsewhere
        assertThat(shortages("RuntimeError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; 15.75 GiB total capacity; "
                + "580.12 MiB already allocated; 20.00 MiB free; 600.00 MiB reserved in total by PyTorch)\n")).singleElement()
                .satisfies(s -> assertThat(s.detail()).contains("15.14 GiB of 15.75 GiB held outside"));
        // the 1.0-1.5 wording, where "cached" is only the free blocks the allocator kept: held = allocated + cached
        assertThat(shortages("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 7.93 GiB total capacity; "
                + "1.10 GiB already allocated; 8.50 MiB free; 1.21 GiB cached)\n")).singleElement()
                .satisfies(s -> assertThat(s.detail()).contains("5.61 GiB of 7.93 GiB held outside"));
        // ... so a card mostly allocated by the job, with a little cached, names no one else
        assertThat(shortages("RuntimeError: CUDA out of memory. Tried to allocate 256.00 MiB (GPU 0; 7.93 GiB total capacity; "
                + "6.02 GiB already allocated; 212.00 MiB free; 610.00 MiB cached)\n")).singleElement()
                .satisfies(s -> assertThat(s.detail()).isEqualTo("GPU 0"));
    }

    @Test
    void pytorch1sMessageWithTheCardFullOfItsOwnMemoryNamesNoOneElse() throws Exception {
        // 7.79 GiB card, 6.90 GiB reserved by PyTorch: the rest (under 1 GiB) is the context and libraries
        assertThat(shortages("RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 7.79 GiB total capacity; "
                + "6.51 GiB already allocated; 120.44 MiB free; 6.90 GiB reserved in total by PyTorch)\n")).singleElement()
                .satisfies(s -> assertThat(s.detail()).isEqualTo("GPU 0"));
    }

    private List<MemoryShortage> shortages(String log) throws Exception {
        Path file = tmp.resolve("console-" + log.hashCode() + ".log");
        Files.writeString(file, log);
        List<Fact> facts = new ConsoleLogParser().parse(new ParseInput("console.log", ArtifactType.CONSOLE_LOG, file)).facts();
        return facts.stream().filter(f -> f instanceof MemoryShortage).map(f -> (MemoryShortage) f).toList();
    }
}
