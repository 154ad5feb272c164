package dev.crashlab.web;

import dev.crashlab.web.problem.ProblemException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Bounds a request body that declared no length to {@link RequestSizeLimit#MAX_BODY_BYTES} while the REST layer
 * reads it: the byte past the limit is a 413 problem, whatever the body's type. {@link RequestSizeLimit} refuses
 * such bodies from their headers over HTTP/1.1 (411); an HTTP/2 stream's headers cannot say whether a body follows,
 * so its body is counted here instead (issue 26: an h2c body with neither length nor type was bounded only by the
 * HTTP layer's upload-sized limit). The bundle upload keeps its own limit.
 */
@Provider
public class UndeclaredBodyLimit implements ReaderInterceptor {

    @Inject
    CurrentVertxRequest current;

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        HttpServerRequest request = current.getCurrent() == null ? null : current.getCurrent().request();
        if (request != null && request.getHeader(HttpHeaders.CONTENT_LENGTH) == null
                && !RequestSizeLimit.isUpload(request.method(), request.path())) {
            context.setInputStream(new Bounded(context.getInputStream(), RequestSizeLimit.MAX_BODY_BYTES));
        }
        return context.proceed();
    }

    /** An input stream that fails with a 413 problem at its {@code limit + 1}th byte. */
    static final class Bounded extends FilterInputStream {
        private final long limit;
        private long read;

        Bounded(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, (int) Math.min(len, limit + 1 - read));
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > limit) {
                throw new ProblemException(413, "too-large", "Request too large", "request bodies may be at most 1 MiB here "
                        + "(only uploads to /api/bundles may be larger); this one sent more without declaring its length");
            }
        }
    }
}
