package dev.crashlab.crashes.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

import dev.crashlab.crashes.CrashQuery;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The query language over HTTP on the real database: real corpus bundles are uploaded, and every facet value the
 * search returns, used as a filter, finds exactly the bundles it counted; random queries are a 200 or a 400 that
 * points at a character, never a 500.
 */
@QuarkusTest
class QueryLanguageApiTest {

    static final Path BUNDLES = Path.of("../shared/corpus/crash-bundles");

    static JsonPath search(String q, int limit) {
        return given().queryParam("q", q).queryParam("limit", limit).when().get("/api/bundles/search").then().statusCode(200)
                .extract().jsonPath();
    }

    // a crash.log and env.txt of a corpus case, zipped under a name no other test uses
    static long uploadCase(Path dir, String tag) throws IOException {
        Zips z = Zips.zip();
        for (String f : List.of("crash.log", "env.txt")) {
            if (Files.isRegularFile(dir.resolve(f))) {
                z.bytes(f, Files.readAllBytes(dir.resolve(f)));
            }
        }
        long id = given().multiPart("file", tag + "-" + dir.getFileName() + ".zip", z.build(), "application/zip")
                .when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id); // read and diagnosed in the background
        return id;
    }

    @Test
    void everyFacetFilterFindsTheCorpusBundlesItCounted() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(BUNDLES), "../shared/corpus not present: the corpus test needs it");
        String tag = "qltest" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        List<Long> ids = new ArrayList<>();
        try (Stream<Path> cases = Files.list(BUNDLES)) {
            for (Path c : cases.sorted().limit(24).toList()) {
                ids.add(uploadCase(c, tag));
            }
        }
        // the bundle name is in the searchable text, so the tag scopes every query to this test's uploads
        JsonPath all = search(tag, 50);
        assertThat(all.getList("hits.bundleId", Long.class)).containsExactlyInAnyOrderElementsOf(ids);
        Map<String, List<Map<String, Object>>> facets = all.getMap("facets");
        assertThat(facets.keySet()).containsExactly("cause", "gpu", "driver", "cuda", "framework", "os", "exit");
        int checked = 0;
        for (var dim : facets.entrySet()) {
            for (Map<String, Object> v : dim.getValue()) {
                String filter = (String) v.get("filter");
                long count = ((Number) v.get("count")).longValue();
                JsonPath with = search(tag + " " + filter, 50);
                assertThat(with.getLong("total")).as(filter).isEqualTo(count);
                JsonPath without = search(tag + " -" + filter, 50);
                assertThat(without.getLong("total")).as("-" + filter).isEqualTo(ids.size() - count);
                checked++;
            }
        }
        // the corpus has causes, GPUs, versions and OSes enough to make this check mean something
        assertThat(facets.get("cause")).isNotEmpty();
        assertThat(facets.get("os")).isNotEmpty();
        assertThat(checked).isGreaterThan(10);
        // hits say what the list shows
        Map<String, Object> hit = all.getList("hits", Map.class).stream().map(m -> (Map<String, Object>) m)
                .filter(h -> h.get("gpu") != null).findFirst().orElseThrow();
        assertThat((String) hit.get("name")).startsWith(tag);
    }

    @Test
    void syntaxErrorsAreProblemsThatPointAtTheCharacter() {
        given().queryParam("q", "cudnn gpu:\"RTX 3090").when().get("/api/bundles/search").then().statusCode(400)
                .contentType(containsString("application/problem+json"))
                .body("type", containsString("bad-query"))
                .body("detail", containsString("at character 11"));
        given().queryParam("q", "driver:<abc").when().get("/api/bundles/search").then().statusCode(400)
                .body("detail", containsString("not a version"));
        given().queryParam("q", "gup:3090").when().get("/api/bundles/search").then().statusCode(400)
                .body("detail", containsString("unknown field 'gup'"));
        given().queryParam("q", "uploader:").when().get("/api/bundles/search").then().statusCode(400)
                .body("detail", containsString("needs a value"));
        assertThat(given().when().get("/api/bundles/search/fields").then().statusCode(200).extract().jsonPath()
                .getList("name", String.class)).contains("cause", "exit", "gpu", "driver", "cuda", "tensorflow", "os", "xid", "lib",
                "confirmed", "uploaded", "uploader");
    }

    /** A property: random queries built from the language's own pieces are answered 200 or 400, never 500. */
    @Test
    void randomQueriesNeverGiveA500() {
        Random r = new Random(Long.getLong("crashlab.query.seed", 20261124L));
        List<String> pieces = new ArrayList<>(List.of("\"", "(", ")", "-", " OR ", " AND ", " ", "<", "<=", ">", ">=", "=",
                "*", ".*", "?", "\\", ":", "2.10", "470", "11", "yes", "no", "windows", "RTX 3090", "2026-11-01", "0xC0000409",
                "zlibwapi.dll", "cudnn", "é", "%", "&", "\u0000", "'", "💥", "999999999999", "1.2.3.4.5"));
        CrashQuery.FIELDS.keySet().forEach(f -> pieces.add(f + ":"));
        pieces.add("unknown:");
        int ok = 0;
        int refused = 0;
        for (int n = 0; n < 400; n++) {
            StringBuilder sb = new StringBuilder();
            int len = 1 + r.nextInt(10);
            for (int i = 0; i < len; i++) {
                sb.append(pieces.get(r.nextInt(pieces.size())));
            }
            String q = sb.toString();
            Response res = given().queryParam("q", q).when().get("/api/bundles/search");
            assertThat(res.statusCode()).as(q).isIn(200, 400);
            if (res.statusCode() == 400) {
                assertThat(res.contentType()).as(q).contains("application/problem+json");
                refused++;
            } else {
                ok++;
            }
        }
        // both outcomes occur, so the generator exercises the parser and the index
        assertThat(ok).isGreaterThan(20);
        assertThat(refused).isGreaterThan(20);
    }
}
