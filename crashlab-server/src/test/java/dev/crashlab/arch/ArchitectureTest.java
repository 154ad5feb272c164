package dev.crashlab.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape docs/architecture.md describes ("Rules that keep the shape"), checked on the compiled classes of the
 * server's class path (core, conv, repro and server): capabilities (top-level packages under {@code dev.crashlab}, each
 * with its sub-packages; a capability's Quarkus layer, {@code <capability>.service}, is a capability of its own) depend
 * on each other one way only; the plain-Java modules never reach the server's packages; the convolution engine imports
 * nothing else from CrashLab; and only {@code web/} knows HTTP. A new cycle or a service that throws or imports web
 * types fails here.
 */
class ArchitectureTest {

    static JavaClasses main;

    @BeforeAll
    static void importMain() {
        // test classes also arrive packed in the lower modules' test jars (crashlab-core-*-tests.jar), which
        // DO_NOT_INCLUDE_TESTS (a test-classes folder) does not recognise
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("dev.crashlab");
    }

    /** The server module's own packages (Quarkus); everything else under dev.crashlab is plain Java. */
    static final String[] SERVER_PACKAGES = {"dev.crashlab.account..", "dev.crashlab.bundle..", "dev.crashlab.config..",
        "dev.crashlab.ingest..", "dev.crashlab.metrics..", "dev.crashlab.retention..", "dev.crashlab.web..", "dev.crashlab.repro.jobs..",
        "dev.crashlab.crashes.service..", "dev.crashlab.diagnose.service..", "dev.crashlab.kb.service..",
        "dev.crashlab.reader.service..", "dev.crashlab.migrate.."};

    /** A class's capability: its top-level package, or {@code <top>.service} for a capability's Quarkus layer. */
    static final SliceAssignment CAPABILITIES = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String pkg = c.getPackageName();
            if (!pkg.startsWith("dev.crashlab.") || pkg.startsWith("dev.crashlab.arch")) {
                return SliceIdentifier.ignore();
            }
            String[] parts = pkg.substring("dev.crashlab.".length()).split("\\.");
            boolean service = parts.length > 1 && (parts[1].equals("service") || parts[1].equals("jobs"));
            return SliceIdentifier.of(service ? parts[0] + "." + parts[1] : parts[0]);
        }

        @Override
        public String getDescription() {
            return "capabilities of dev.crashlab";
        }
    };

    /** Capabilities form no cycle: reactions up the chain go through CDI events or interfaces owned below. */
    static final ArchRule NO_CAPABILITY_CYCLES = slices().assignedFrom(CAPABILITIES).should().beFreeOfCycles();

    static final ArchRule PLAIN_JAVA_STAYS_BELOW = noClasses().that().resideInAPackage("dev.crashlab..")
            .and().resideOutsideOfPackages(SERVER_PACKAGES)
            .should().dependOnClassesThat().resideInAnyPackage(SERVER_PACKAGES)
            .because("core, conv and repro are plain Java that the CLI and the child process load without a server");

    static final ArchRule CONV_STANDS_ALONE = noClasses().that().resideInAPackage("dev.crashlab.conv..")
            .should().dependOnClassesThat(com.tngtech.archunit.base.DescribedPredicate.describe("CrashLab outside conv",
                    (JavaClass c) -> c.getPackageName().startsWith("dev.crashlab.") && !c.getPackageName().startsWith("dev.crashlab.conv")))
            .because("the convolution engine builds and tests on its own");

    static final ArchRule WEB_STAYS_IN_WEB = noClasses().that().resideOutsideOfPackage("dev.crashlab.web..")
            .should().dependOnClassesThat().resideInAPackage("dev.crashlab.web..")
            .because("services throw domain exceptions; only web/ maps them to HTTP");

    static final ArchRule HTTP_STAYS_IN_WEB = noClasses().that().resideOutsideOfPackage("dev.crashlab.web..")
            .should().dependOnClassesThat().resideInAnyPackage("jakarta.ws.rs..", "org.jboss.resteasy..")
            .because("JAX-RS types are the web layer's business");

    @Test
    void capabilitiesHaveNoCycles() {
        NO_CAPABILITY_CYCLES.check(main);
    }

    @Test
    void plainJavaModulesNeverReachTheServer() {
        PLAIN_JAVA_STAYS_BELOW.check(main);
    }

    @Test
    void theConvolutionEngineImportsNoOtherCrashLabCode() {
        CONV_STANDS_ALONE.check(main);
    }

    @Test
    void onlyWebImportsWeb() {
        WEB_STAYS_IN_WEB.check(main);
    }

    @Test
    void onlyWebKnowsJaxRs() {
        HTTP_STAYS_IN_WEB.check(main);
    }

    @Test
    void resourcesAnswerRecordsNotUntypedJson() {
        List<String> found = new ArrayList<>();
        for (JavaClass c : main) {
            if (c.getPackageName().startsWith("dev.crashlab.")) {
                found.addAll(untypedAnswers(c.reflect()));
            }
        }
        assertThat(found).as("resource methods answering JsonNode/ObjectNode or a Map (the OpenAPI document cannot describe "
                + "them; answer a record)").isEmpty();
    }

    @Test
    void theUntypedAnswerRuleSeesEachKind() {
        // guards the rule itself: a bare tree, a bare map and a tree inside a record are each reported
        assertThat(untypedAnswers(dev.crashlab.arch.untyped.UntypedResource.class))
                .anyMatch(s -> s.contains("tree()")).anyMatch(s -> s.contains("map()")).anyMatch(s -> s.contains("wrapped()"))
                .hasSize(3);
    }

    /** The HTTP operations of a class (methods with a JAX-RS method designator) whose answer holds untyped JSON. */
    static List<String> untypedAnswers(Class<?> c) {
        List<String> out = new ArrayList<>();
        Method[] methods;
        try {
            methods = c.getDeclaredMethods();
        } catch (LinkageError e) {
            return out; // a class whose optional dependencies are absent (it is no resource)
        }
        for (Method m : methods) {
            boolean operation = Arrays.stream(m.getAnnotations())
                    .anyMatch(a -> a.annotationType().isAnnotationPresent(jakarta.ws.rs.HttpMethod.class));
            if (!operation) {
                continue;
            }
            Type answer = m.getGenericReturnType();
            if (answer instanceof Class<?> k && Map.class.isAssignableFrom(k)
                    || answer instanceof ParameterizedType p && Map.class.isAssignableFrom((Class<?>) p.getRawType())) {
                out.add(c.getName() + "." + m.getName() + "() answers a Map");
                continue;
            }
            String path = untyped(answer, new HashSet<>());
            if (path != null) {
                out.add(c.getName() + "." + m.getName() + "() answers " + path);
            }
        }
        return out;
    }

    /** Where in a type an untyped tree (a JsonNode, or a map to Object) sits, or null; walks type arguments and record components. */
    private static String untyped(Type t, Set<Type> seen) {
        if (!seen.add(t)) {
            return null;
        }
        if (t instanceof ParameterizedType p) {
            Type[] args = p.getActualTypeArguments();
            if (Map.class.isAssignableFrom((Class<?>) p.getRawType()) && args.length == 2
                    && (args[1] == Object.class || args[1] instanceof WildcardType)) {
                return p.getTypeName();
            }
            for (Type a : args) {
                String inner = untyped(a, seen);
                if (inner != null) {
                    return inner;
                }
            }
            return untyped(p.getRawType(), seen);
        }
        if (t instanceof Class<?> k) {
            if (com.fasterxml.jackson.databind.JsonNode.class.isAssignableFrom(k)) {
                return k.getSimpleName();
            }
            if (k.isRecord()) {
                for (RecordComponent rc : k.getRecordComponents()) {
                    String inner = untyped(rc.getGenericType(), seen);
                    if (inner != null) {
                        return k.getSimpleName() + "." + rc.getName() + ": " + inner;
                    }
                }
            }
        }
        return null;
    }

    @Test
    void theCycleRuleSeesACycle() {
        // guards the rule itself: two test packages that import each other must be reported
        JavaClasses fixture = new ClassFileImporter().importPackages("dev.crashlab.arch.cycle");
        EvaluationResult result = slices().matching("dev.crashlab.arch.cycle.(*)..").should().beFreeOfCycles()
                .evaluate(fixture);
        assertThat(result.hasViolation()).isTrue();
    }
}
