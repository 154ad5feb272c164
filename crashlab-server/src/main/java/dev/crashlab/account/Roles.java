package dev.crashlab.account;

import dev.crashlab.domain.DomainException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The roles, as the names REST operations declare. A person's roles imply {@link #VIEWER} (everyone who may
 * change something may read), and {@link #ADMIN} implies every person role. {@link #WORKER} is only ever held
 * by a worker token and implies nothing: a lab machine reads no crash logs.
 */
public final class Roles {

    public static final String VIEWER = "viewer";
    public static final String REPORTER = "reporter";
    public static final String TRIAGER = "triager";
    public static final String LAB = "lab";
    public static final String ADMIN = "admin";
    public static final String WORKER = "worker";

    /** The roles a person (or a personal token) may hold, weakest first. */
    public static final List<String> PERSON = List.of(VIEWER, REPORTER, TRIAGER, LAB, ADMIN);

    private Roles() {}

    /** The roles {@code granted} amount to, implications included. */
    public static Set<String> effective(Set<String> granted) {
        Set<String> out = new LinkedHashSet<>(granted);
        if (granted.contains(ADMIN)) {
            out.addAll(PERSON);
        }
        if (granted.stream().anyMatch(PERSON::contains)) {
            out.add(VIEWER);
        }
        return out;
    }

    /** Parses a comma-separated list of person roles; refuses unknown names and an empty list. */
    public static Set<String> parsePerson(String text) {
        Set<String> roles = text == null ? Set.of() : Arrays.stream(text.split(","))
                .map(String::strip).filter(s -> !s.isEmpty()).map(s -> s.toLowerCase(java.util.Locale.ROOT))
                .collect(Collectors.toCollection(TreeSet::new));
        return checkPerson(roles);
    }

    /** Refuses unknown names and an empty set. */
    public static Set<String> checkPerson(Set<String> roles) {
        if (roles == null || roles.isEmpty()) {
            throw new DomainException(DomainException.Kind.INVALID, "no-roles", "No roles",
                    "name at least one role of " + String.join(", ", PERSON));
        }
        for (String r : roles) {
            if (!PERSON.contains(r)) {
                throw new DomainException(DomainException.Kind.INVALID, "unknown-role", "Unknown role",
                        "`" + r + "` is not a role; the roles are " + String.join(", ", PERSON));
            }
        }
        return new TreeSet<>(roles);
    }

    static String format(Set<String> roles) {
        return String.join(",", new TreeSet<>(roles));
    }

    static Set<String> read(String column) {
        return column == null || column.isBlank() ? Set.of()
                : Arrays.stream(column.split(",")).map(String::strip).collect(Collectors.toCollection(TreeSet::new));
    }
}
