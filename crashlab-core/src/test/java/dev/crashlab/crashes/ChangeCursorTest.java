package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How a server reads a change log whose ids commit out of order. */
class ChangeCursorTest {

    static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void inOrderChangesMoveTheMark() {
        ChangeCursor c = new ChangeCursor(0, WAIT);
        c.applied(1);
        c.applied(2);
        assertThat(c.advance(1000)).isTrue();
        assertThat(c.mark()).isEqualTo(2);
        assertThat(c.pending(2)).isFalse();
        assertThat(c.pending(3)).isTrue();
        assertThat(c.gaps(10)).isEmpty();
    }

    @Test
    void aGapHoldsTheMarkUntilItFills() {
        ChangeCursor c = new ChangeCursor(10, WAIT);
        c.applied(11);
        c.applied(13); // 12 took its number first but commits later
        c.advance(1000);
        assertThat(c.mark()).isEqualTo(11);
        assertThat(c.gaps(10)).containsExactly(12L);
        assertThat(c.pending(13)).as("applied above the mark: not again").isFalse();
        assertThat(c.highest()).isEqualTo(13);

        c.advance(30_000); // still waited for
        assertThat(c.mark()).isEqualTo(11);
        assertThat(c.pending(12)).isTrue();

        c.applied(12);
        c.advance(31_000);
        assertThat(c.mark()).isEqualTo(13);
        assertThat(c.gaps(10)).isEmpty();
    }

    @Test
    void aGapThatNeverFillsIsPassedAfterTheWait() {
        ChangeCursor c = new ChangeCursor(0, WAIT);
        c.applied(1);
        c.applied(4);
        c.advance(1000);
        assertThat(c.gaps(10)).containsExactly(2L, 3L);
        assertThat(c.mark()).isEqualTo(1);
        c.advance(1000 + WAIT.toMillis() - 1);
        assertThat(c.mark()).isEqualTo(1);
        c.advance(1000 + WAIT.toMillis());
        assertThat(c.mark()).as("a rolled-back transaction's number is given up").isEqualTo(4);
        assertThat(c.gaps(10)).isEmpty();
    }

    @Test
    void aGapSeenLaterWaitsItsOwnTime() {
        ChangeCursor c = new ChangeCursor(0, WAIT);
        c.applied(1);
        c.applied(3);
        c.advance(0);
        c.applied(5); // 4 first seen missing now
        c.advance(50_000);
        c.advance(60_000);
        assertThat(c.mark()).as("2 passed; 4 still waited for").isEqualTo(3);
        assertThat(c.gaps(10)).containsExactly(4L);
        c.advance(110_000);
        assertThat(c.mark()).isEqualTo(5);
    }

    @Test
    void nothingNewLeavesTheMarkAlone() {
        ChangeCursor c = new ChangeCursor(7, WAIT);
        assertThat(c.advance(1000)).isFalse();
        assertThat(c.mark()).isEqualTo(7);
        assertThat(c.highest()).isEqualTo(7);
        c.applied(5); // below the mark: already counted
        assertThat(c.advance(2000)).isFalse();
        assertThat(c.highest()).isEqualTo(7);
    }

    @Test
    void aHoleWiderThanAnySetOfOpenTransactionsIsPassedBeyondTheCap() {
        ChangeCursor c = new ChangeCursor(0, WAIT);
        long far = ChangeCursor.MAX_GAPS + 50_000L;
        c.applied(far);
        c.advance(0);
        assertThat(c.gaps(Integer.MAX_VALUE)).hasSize(ChangeCursor.MAX_GAPS);
        assertThat(c.mark()).isZero();
        c.advance(WAIT.toMillis());
        assertThat(c.mark()).isEqualTo(far);
    }
}
