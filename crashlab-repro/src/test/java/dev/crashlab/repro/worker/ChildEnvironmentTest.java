package dev.crashlab.repro.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reproduction's child JVM gets a minimal environment: none of the server's secrets. */
class ChildEnvironmentTest {

    @TempDir
    Path dir;

    @Test
    void secretsInTheParentsEnvironmentStayThere() {
        Map<String, String> parent = new HashMap<>();
        parent.put("PATH", "/usr/bin:/bin");
        parent.put("LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu");
        parent.put("CUDA_VISIBLE_DEVICES", "0");
        parent.put("QUARKUS_DATASOURCE_PASSWORD", "db-secret");
        parent.put("CRASHLAB_DB_PASSWORD", "db-secret-2");
        parent.put("CRASHLAB_LAB_WORKER_TOKEN", "worker-token");
        parent.put("CRASHLAB_ADMIN_TOKEN", "admin-token");
        parent.put("AWS_SECRET_ACCESS_KEY", "aws");
        parent.put("HF_TOKEN", "hf");
        parent.put("JAVA_TOOL_OPTIONS", "-javaagent:x.jar");
        assertThat(ChildJvm.childEnvironment(parent)).isEqualTo(Map.of(
                "PATH", "/usr/bin:/bin", "LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu", "CUDA_VISIBLE_DEVICES", "0"));
    }

    @Test
    void aRealChildSeesOnlyTheAllowedVariables() throws Exception {
        Set<String> parentOnly = new TreeSet<>(System.getenv().keySet());
        parentOnly.removeAll(ChildJvm.CHILD_ENV);
        assertThat(parentOnly).as("this test needs a parent variable a child must not get (HOME, USER, ...)").isNotEmpty();

        Path log = dir.resolve("child.log");
        ChildExit exit = ChildJvm.likeThisJvm("64m", EnvDumpChild.class.getName(), List.of()).start(log)
                .await(Duration.ofSeconds(120));
        assertThat(exit.exitCode()).as(exit.describe()).isZero();
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).contains("env-done");
        Set<String> childKeys = new TreeSet<>();
        lines.stream().filter(l -> l.startsWith("env:")).forEach(l -> childKeys.add(l.substring(4, l.indexOf('='))));
        assertThat(ChildJvm.CHILD_ENV).containsAll(childKeys);
        assertThat(childKeys).doesNotContainAnyElementsOf(parentOnly);
        if (System.getenv("PATH") != null) {
            assertThat(childKeys).contains("PATH");
        }
    }
}
