package dev.crashlab.crashes.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.bundle.Bundle;
import dev.crashlab.testing.Zips;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 24 acceptance 4: a change made by hand SQL, which writes no change-log row, leaves the past-crash index
 * disagreeing with the database; the verify step (counts and a checksum of ids and entries) finds exactly the bundles
 * that differ and repairs them, after which both agree.
 */
@QuarkusTest
@Tag("persistence")
class IndexDriftTest {

    @jakarta.inject.Inject
    CrashSearchService search;

    private static long upload(String lib) {
        byte[] zip = Zips.zip().text("crash.log", PastCrashesApiTest.log(lib, "train.py")).build();
        long id = given().multiPart("file", "drift.zip", zip, "application/zip").when().post("/api/bundles").then().statusCode(201)
                .extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id);
        return id;
    }

    private static List<Long> found(String lib) {
        return given().queryParam("q", "lib:" + lib).queryParam("limit", 50).when().get("/api/bundles/search").then().statusCode(200)
                .extract().jsonPath().getList("hits.bundleId", Long.class);
    }

    private static JsonPath verify(boolean repair) {
        return given().queryParam("repair", repair).when().post("/api/admin/crash-index/verify").then().statusCode(200)
                .extract().jsonPath();
    }

    private static void sql(String statement, Object... params) {
        QuarkusTransaction.requiringNew().run(() -> {
            var q = Bundle.getEntityManager().createNativeQuery(statement);
            for (int i = 0; i < params.length; i++) {
                q.setParameter(i + 1, params[i]);
            }
            q.executeUpdate();
        });
    }

    @Test
    void handSqlIsDetectedByTheVerifyStepAndRepaired() {
        String libA = PastCrashesApiTest.lib();
        String libB = PastCrashesApiTest.lib();
        long moved = upload(libA);
        long undiagnosed = upload(libB);
        long kept = upload(libA);
        verify(true); // what other tests left behind on the shared database is not this test's business
        JsonPath before = verify(false);
        assertThat(before.getInt("missingCount") + before.getInt("extraCount") + before.getInt("changedCount")).isZero();
        assertThat(before.getString("indexChecksum")).isEqualTo(before.getString("databaseChecksum"));
        assertThat(before.getLong("indexCount")).isEqualTo(before.getLong("databaseCount"));

        // by hand, as an operator's SQL or a partial restore would: no crash_change row
        sql("update bundle set uploaded_at = uploaded_at - interval '3' day where id = ?1", moved);
        sql("delete from bundle_diagnosis where bundle_id = ?1", undiagnosed);
        search.syncNow(); // the change log has nothing to say about either
        assertThat(found(libB)).as("the index still holds what the database no longer has").contains(undiagnosed);

        JsonPath drift = verify(false);
        assertThat(drift.getString("indexChecksum")).isNotEqualTo(drift.getString("databaseChecksum"));
        assertThat(drift.getList("changed", Long.class)).containsExactly(moved);
        assertThat(drift.getList("extra", Long.class)).containsExactly(undiagnosed);
        assertThat(drift.getList("missing", Long.class)).isEmpty();
        assertThat(drift.getBoolean("repaired")).isFalse();
        assertThat(drift.getLong("indexCount")).isEqualTo(drift.getLong("databaseCount") + 1);

        JsonPath repaired = verify(true);
        assertThat(repaired.getList("changed", Long.class)).containsExactly(moved);
        assertThat(repaired.getList("extra", Long.class)).containsExactly(undiagnosed);
        assertThat(repaired.getBoolean("repaired")).isTrue();
        assertThat(found(libB)).doesNotContain(undiagnosed);
        assertThat(found(libA)).containsExactlyInAnyOrder(moved, kept);

        JsonPath after = verify(false);
        assertThat(after.getInt("missingCount") + after.getInt("extraCount") + after.getInt("changedCount")).isZero();
        assertThat(after.getString("indexChecksum")).isEqualTo(after.getString("databaseChecksum"));
        assertThat(after.getString("summary")).contains("0 missing, 0 extra, 0 changed");

        // a non-admin may not ask
        given().header("Authorization", "Bearer " + dev.crashlab.testing.TestAuth.userToken("drift-viewer-" + System.nanoTime(), "viewer"))
                .when().post("/api/admin/crash-index/verify").then().statusCode(403);
    }
}
