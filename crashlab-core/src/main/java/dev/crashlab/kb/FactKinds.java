package dev.crashlab.kb;

import dev.crashlab.fact.Fact;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Knows every kind of {@link Fact} (the record classes in {@code dev.crashlab.fact}) and their fields,
 * so that an article naming an unknown kind or field fails validation instead of never matching.
 *
 * <p>NOTE: the families are sealed or not as their parsers mature; sealed ones are walked through
 * {@link Class#getPermittedSubclasses()}, and the package is also scanned (directory or jar), so a fact
 * record added by any branch is known without editing this class.
 */
public final class FactKinds {

    private static final String PACKAGE = Fact.class.getPackageName();
    private static final FactKinds INSTANCE = new FactKinds(discover());

    private final Map<String, Class<? extends Fact>> kinds;

    FactKinds(Map<String, Class<? extends Fact>> kinds) {
        this.kinds = Map.copyOf(kinds);
    }

    /** Returns the registry of the fact records on the class path. */
    public static FactKinds get() {
        return INSTANCE;
    }

    /** Every kind's name, sorted. */
    public Set<String> names() {
        return new java.util.TreeSet<>(kinds.keySet());
    }

    /** The record class of a kind, if it exists. */
    public Optional<Class<? extends Fact>> kind(String name) {
        return Optional.ofNullable(kinds.get(name));
    }

    /**
     * Tells whether a dotted field path ({@code library}, {@code data.AppName}, {@code frames.file}) names
     * a field of the kind: the first segment must be a record component; further segments are checked
     * while the type is a record (or a list of records) and accepted under maps and other objects.
     */
    public boolean hasField(String kind, String path) {
        Class<?> type = kinds.get(kind);
        if (type == null) {
            return false;
        }
        for (String segment : path.split("\\.", -1)) {
            if (type == null || !type.isRecord()) {
                return !segment.isEmpty(); // inside a map or an opaque value: any key may exist
            }
            Type next = null;
            for (RecordComponent rc : type.getRecordComponents()) {
                if (rc.getName().equals(segment) && !segment.equals("sources")) {
                    next = rc.getGenericType();
                }
            }
            if (next == null) {
                return false;
            }
            type = elementClass(next);
        }
        return true;
    }

    /** The field names of a kind (its record components, without {@code sources}). */
    public List<String> fields(String kind) {
        Class<?> type = kinds.get(kind);
        if (type == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (RecordComponent rc : type.getRecordComponents()) {
            if (!rc.getName().equals("sources")) {
                out.add(rc.getName());
            }
        }
        return out;
    }

    // A list or map's element type, a record's own class; null for anything that cannot be walked further.
    private static Class<?> elementClass(Type t) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw) {
            if (Collection.class.isAssignableFrom(raw) && p.getActualTypeArguments()[0] instanceof Class<?> e) {
                return e;
            }
            return raw;
        }
        return null;
    }

    private static Map<String, Class<? extends Fact>> discover() {
        Map<String, Class<? extends Fact>> out = new TreeMap<>();
        walkPermitted(Fact.class, out);
        for (String className : scanPackage()) {
            try {
                Class<?> c = Class.forName(className, false, Fact.class.getClassLoader());
                if (c.isRecord() && Fact.class.isAssignableFrom(c)) {
                    out.put(c.getSimpleName(), c.asSubclass(Fact.class));
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // a class that cannot load is not a kind an article can use
            }
        }
        return out;
    }

    private static void walkPermitted(Class<?> c, Map<String, Class<? extends Fact>> out) {
        if (c.isRecord() && Fact.class.isAssignableFrom(c)) {
            out.put(c.getSimpleName(), c.asSubclass(Fact.class));
        }
        Class<?>[] permitted = c.getPermittedSubclasses();
        if (permitted != null) {
            for (Class<?> p : permitted) {
                walkPermitted(p, out);
            }
        }
    }

    // Class names of the fact package, from a directory or a jar on the class path.
    private static Set<String> scanPackage() {
        Set<String> names = new LinkedHashSet<>();
        for (String file : ClasspathFolder.list(Fact.class, PACKAGE.replace('.', '/'))) {
            if (file.endsWith(".class") && !file.contains("$")) {
                names.add(PACKAGE + "." + file.substring(0, file.length() - ".class".length()));
            }
        }
        return names;
    }
}
