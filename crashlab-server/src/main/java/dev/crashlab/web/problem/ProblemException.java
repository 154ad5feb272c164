package dev.crashlab.web.problem;

/** Ends a request with a given problem document; thrown by resources, mapped by {@link ProblemMappers}. */
public final class ProblemException extends RuntimeException {

    private final String slug;
    private final String title;
    private final int status;

    /** Creates a problem of kind {@code slug} with a user-facing {@code detail}. */
    public ProblemException(int status, String slug, String title, String detail) {
        super(detail, null, false, false);
        this.slug = slug;
        this.title = title;
        this.status = status;
    }

    /** Says that the thing at this path does not exist. */
    public static ProblemException notFound(String detail) {
        return new ProblemException(404, "not-found", "Not found", detail);
    }

    /** Converts to the problem document for request path {@code instance}. */
    public Problem toProblem(String instance) {
        return Problem.of(slug, title, status, getMessage(), instance);
    }
}
