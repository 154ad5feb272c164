package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.conv.ConvBackend.OutOfMemory;
import org.junit.jupiter.api.Test;

class DeviceMemoryBudgetTest {

    static final long MIB = 1024 * 1024;

    @Test
    void chargesAllocationsInWholeAlignmentUnits() {
        assertThat(DeviceMemoryBudget.charged(0)).isZero();
        assertThat(DeviceMemoryBudget.charged(1)).isEqualTo(256);
        assertThat(DeviceMemoryBudget.charged(256)).isEqualTo(256);
        assertThat(DeviceMemoryBudget.charged(257)).isEqualTo(512);
    }

    @Test
    void allocatesUpToTheCapThenRefusesTheOneThatCrossesIt() throws OutOfMemory {
        // a 6 GiB card: x 2 GiB and w 1 GiB fit, y 4 GiB does not (3 GiB left)
        DeviceMemoryBudget budget = new DeviceMemoryBudget();
        budget.cap(6144 * MIB);
        budget.reserve("x", 2048 * MIB);
        budget.reserve("w", 1024 * MIB);
        assertThatThrownBy(() -> budget.reserve("y (output)", 4096 * MIB))
                .isInstanceOfSatisfying(OutOfMemory.class, e -> {
                    assertThat(e.requestedBytes()).isEqualTo(4096 * MIB);
                    assertThat(e.availableBytes()).isEqualTo(3072 * MIB);
                    assertThat(e.getMessage()).contains("y (output)").contains("4294967296 bytes requested");
                });
        assertThat(budget.used()).as("a refused allocation is not charged").isEqualTo(3072 * MIB);
        budget.reserve("y (output)", 3072 * MIB);
        assertThat(budget.used()).as("exactly the cap fits").isEqualTo(6144 * MIB);
    }

    @Test
    void withoutACapEverythingIsChargedAndThePeakRemembered() throws OutOfMemory {
        DeviceMemoryBudget budget = new DeviceMemoryBudget();
        budget.reserve("a", 1000);
        budget.reserve("b", 3000);
        budget.release(1000);
        budget.reserve("c", 100);
        assertThat(budget.used()).isEqualTo(3072 + 256);
        assertThat(budget.peak()).isEqualTo(1024 + 3072);
        budget.release(3000);
        budget.release(100);
        assertThat(budget.used()).isZero();
        budget.resetPeak();
        assertThat(budget.peak()).isZero();
    }

    @Test
    void theCapCountsAlignedBytes() throws OutOfMemory {
        DeviceMemoryBudget budget = new DeviceMemoryBudget();
        budget.cap(1024);
        budget.reserve("a", 700); // charged 768
        assertThatThrownBy(() -> budget.reserve("b", 257)).isInstanceOf(OutOfMemory.class);
        budget.reserve("b", 256);
    }

    @Test
    void refusesANegativeCapAndOverRelease() {
        DeviceMemoryBudget budget = new DeviceMemoryBudget();
        assertThatThrownBy(() -> budget.cap(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> budget.release(1)).isInstanceOf(IllegalStateException.class);
    }
}
