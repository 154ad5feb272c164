package dev.crashlab.web.problem;

import dev.crashlab.unpack.BundleRejectedException;

/** Maps each kind of refused upload to its HTTP status and problem type. */
public final class BundleRejections {

    private BundleRejections() {}

    /** Returns the problem document for a refused upload. */
    public static Problem problem(BundleRejectedException e, String instance) {
        int status = switch (e.kind()) {
            case BAD_NAME, EMPTY -> 400;
            case TOO_LARGE, TOO_MANY_FILES -> 413;
            case NOT_AN_ARCHIVE -> 415;
            case UNSAFE_PATH, LINK, SPECIAL_FILE, CORRUPT, TOO_DEEP, RATIO -> 422;
        };
        String slug = e.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        String title = switch (e.kind()) {
            case BAD_NAME -> "Unacceptable file name";
            case EMPTY -> "Empty upload";
            case TOO_LARGE -> "Upload too large";
            case TOO_MANY_FILES -> "Too many files";
            case NOT_AN_ARCHIVE -> "Not an archive";
            case UNSAFE_PATH -> "Unsafe archive entry";
            case LINK -> "Link in archive";
            case SPECIAL_FILE -> "Special file in archive";
            case CORRUPT -> "Corrupt archive";
            case TOO_DEEP -> "Archives nested too deep";
            case RATIO -> "Suspicious compression ratio";
        };
        return Problem.of(slug, title, status, e.getMessage(), instance);
    }
}
