package dev.crashlab.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape DESIGN.md asks for, checked on the compiled classes: capabilities (top-level packages under
 * {@code dev.crashlab}, each with its sub-packages) depend on each other one way only, and only {@code web/}
 * knows HTTP. A new cycle or a service that throws or imports web types fails here.
 */
class ArchitectureTest {

    static JavaClasses main;

    @BeforeAll
    static void importMain() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.crashlab");
    }

    /** Capabilities form no cycle: reactions up the chain go through CDI events or interfaces owned below. */
    static final ArchRule NO_CAPABILITY_CYCLES = slices().matching("dev.crashlab.(*)..").should().beFreeOfCycles();

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
    void onlyWebImportsWeb() {
        WEB_STAYS_IN_WEB.check(main);
    }

    @Test
    void onlyWebKnowsJaxRs() {
        HTTP_STAYS_IN_WEB.check(main);
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
