package dev.crashlab.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.ClosedChannelException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** The one trace the filter drops (a browser gone mid-write of a live job view) and what it lets through. */
class ClientGoneLogFilterTest {

    private final ClientGoneLogFilter filter = new ClientGoneLogFilter();

    private static LogRecord record(String logger, Throwable thrown) {
        LogRecord r = new LogRecord(Level.SEVERE, "Exception in SSE server handling, impossible to send it to client");
        r.setLoggerName(logger);
        r.setThrown(thrown);
        return r;
    }

    @Test
    void aStreamTheBrowserResetIsNotLogged() {
        // the record seen in the suite's log when a test closed an HTTP/2 event stream as its job changed
        assertThat(filter.isLoggable(record(ClientGoneLogFilter.SSE_WRITER,
                new IllegalArgumentException("Stream no longer exists: 29")))).isFalse();
        assertThat(filter.isLoggable(record(ClientGoneLogFilter.SSE_WRITER,
                new RuntimeException("write failed", new ClosedChannelException())))).isFalse();
    }

    @Test
    void everythingElsePasses() {
        assertThat(filter.isLoggable(record(ClientGoneLogFilter.SSE_WRITER, new IllegalStateException("boom")))).isTrue();
        assertThat(filter.isLoggable(record(ClientGoneLogFilter.SSE_WRITER, new IllegalArgumentException("bad value"))))
                .isTrue();
        assertThat(filter.isLoggable(record(ClientGoneLogFilter.SSE_WRITER, null))).isTrue();
        assertThat(filter.isLoggable(record("dev.crashlab.web.ReproJobResource",
                new IllegalArgumentException("Stream no longer exists: 29")))).isTrue();
    }
}
