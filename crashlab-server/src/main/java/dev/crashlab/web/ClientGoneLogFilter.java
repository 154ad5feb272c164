package dev.crashlab.web;

import io.quarkus.logging.LoggingFilter;
import java.nio.channels.ClosedChannelException;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops one error record that is not an error: RESTEasy's event-stream writer logs at ERROR, with a stack trace, when
 * it writes a job's next event to a browser that has just closed the stream (over HTTP/2 the stream is reset between
 * the job changing and the write; {@code IllegalArgumentException: Stream no longer exists}). The stream's slot is
 * given back all the same (its termination runs), so nothing is lost; a server log full of such traces after every
 * closed tab would hide real errors.
 *
 * <p>Only that logger's records whose cause is the gone stream or a closed channel are dropped; everything else,
 * including other errors from the same writer, passes.
 */
@LoggingFilter(name = "client-gone")
public final class ClientGoneLogFilter implements Filter {

    static final String SSE_WRITER = "org.jboss.resteasy.reactive.server.handlers.PublisherResponseHandler";

    @Override
    public boolean isLoggable(LogRecord record) {
        return !(SSE_WRITER.equals(record.getLoggerName()) && clientWentAway(record.getThrown()));
    }

    static boolean clientWentAway(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ClosedChannelException) {
                return true;
            }
            if (t instanceof IllegalArgumentException && t.getMessage() != null
                    && t.getMessage().startsWith("Stream no longer exists")) {
                return true;
            }
        }
        return false;
    }
}
