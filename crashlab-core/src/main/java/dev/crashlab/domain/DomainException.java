package dev.crashlab.domain;

/**
 * A request the domain refuses, said in domain terms: what kind of refusal, a stable slug, a title and a
 * user-facing detail. Services throw it; only {@code web/problem} turns it into an HTTP problem document, so
 * no service knows about HTTP.
 */
public class DomainException extends RuntimeException {

    /** What kind of refusal this is; the web layer picks the status from it. */
    public enum Kind {
        /** The input is malformed or not allowed (HTTP 400). */
        INVALID,
        /** The thing named does not exist (404). */
        NOT_FOUND,
        /** The thing is in a state that does not allow this (409). */
        CONFLICT,
        /** The input is larger than what is kept (413). */
        TOO_LARGE,
        /** The input is well-formed but cannot be used (422). */
        UNPROCESSABLE,
        /** The caller is not known: no, a wrong, an expired or a revoked credential (401). */
        UNAUTHENTICATED,
        /** The caller is known but may not do this (403). */
        FORBIDDEN,
        /** Too many attempts or open things for now; {@link #retryAfterSeconds()} says when to try again (429). */
        TOO_MANY
    }

    private final Kind kind;
    private final String slug;
    private final String title;
    private final long retryAfterSeconds;

    public DomainException(Kind kind, String slug, String title, String detail) {
        this(kind, slug, title, detail, 0);
    }

    /** A refusal that passes: try again after {@code retryAfterSeconds} (0: no time is said). */
    public DomainException(Kind kind, String slug, String title, String detail, long retryAfterSeconds) {
        super(detail, null, false, false);
        this.kind = kind;
        this.slug = slug;
        this.title = title;
        this.retryAfterSeconds = Math.max(0, retryAfterSeconds);
    }

    /** Seconds after which the same request may succeed; 0 when the refusal says no time. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** Says that the thing named does not exist. */
    public static DomainException notFound(String detail) {
        return new DomainException(Kind.NOT_FOUND, "not-found", "Not found", detail);
    }

    public Kind kind() {
        return kind;
    }

    public String slug() {
        return slug;
    }

    public String title() {
        return title;
    }
}
