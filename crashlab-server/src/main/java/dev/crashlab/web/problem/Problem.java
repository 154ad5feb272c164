package dev.crashlab.web.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.Response;

/**
 * An RFC 9457 problem document: what went wrong, in words the user can act on.
 *
 * @param type a URI naming the kind of problem ({@code urn:crashlab:problem:<slug>})
 * @param title a short summary that is the same for every problem of this type
 * @param status the HTTP status
 * @param detail this occurrence, in full (e.g. which archive entry was refused, and why)
 * @param instance the request path
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String instance) {

    /** The media type of problem documents. */
    public static final String MEDIA_TYPE = "application/problem+json";

    /** Builds a problem of kind {@code slug}. */
    public static Problem of(String slug, String title, int status, String detail, String instance) {
        return new Problem("urn:crashlab:problem:" + slug, title, status, detail, instance);
    }

    /** Wraps this problem in a response with the problem media type. */
    public Response toResponse() {
        return Response.status(status).type(MEDIA_TYPE).entity(this).build();
    }
}
