package dev.crashlab.diagnose.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.arjuna.ats.arjuna.coordinator.TxControl;
import dev.crashlab.testing.Ready;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A diagnosis is not bounded by a database transaction's timeout (a child server under load once passed the 60 s one
 * and {@code /diagnosis} answered 500, "Transaction was rolled back in a different thread"). Here every new
 * transaction gets a timeout of {@value #TIMEOUT_S} s and computing this test's bundle's diagnosis takes longer
 * ({@link SlowConfirmedCrashLookup}, which the diagnosis asks midway): the reading still stores the diagnosis, and
 * with nothing stored a request computes, stores and serves it (200, never 500). With the diagnosis computed inside a
 * transaction both fail: the reading logs the failure and stores nothing, the request answers 500.
 */
@QuarkusTest
class DiagnosisOutsideTransactionTest {

    static final int TIMEOUT_S = 2;
    static final Duration SLOWER = Duration.ofSeconds(TIMEOUT_S + 2);

    static final String LOG = "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
            + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity)\n";

    @Inject
    SlowConfirmedCrashLookup slow;

    @Test
    void aDiagnosisThatOutlastsTheTransactionTimeoutIsStoredAndServed() {
        String name = "slow-diagnosis-" + UUID.randomUUID() + ".log";
        int slowedBefore = slow.slowed();
        int timeoutBefore = TxControl.getDefaultTimeout();
        slow.arm(name, SLOWER);
        TxControl.setDefaultTimeout(TIMEOUT_S); // what a transaction begun without its own timeout gets
        try {
            long id = given().multiPart("file", name, LOG.getBytes(), "text/plain").when().post("/api/bundles")
                    .then().statusCode(201).extract().jsonPath().getLong("id");
            Ready.await(id);
            assertThat(slow.slowed()).as("the reading's diagnosis was slowed").isEqualTo(slowedBefore + 1);
            JsonPath read = diagnosis(id);
            assertThat(read.getBoolean("recomputed")).as("stored by the reading, served as stored").isFalse();
            assertThat(read.getList("hypotheses.id", String.class)).as("a real diagnosis").isNotEmpty();

            // nothing stored: the request computes it (as slowly), stores it, serves it
            QuarkusTransaction.requiringNew().run(() -> BundleDiagnosis.deleteById(id));
            JsonPath computed = diagnosis(id);
            assertThat(slow.slowed()).as("the request's diagnosis was slowed").isEqualTo(slowedBefore + 2);
            assertThat(computed.getBoolean("recomputed")).isTrue();
            assertThat(computed.getString("verdict")).isEqualTo(read.getString("verdict"));
            assertThat(computed.getList("hypotheses.id", String.class)).isEqualTo(read.getList("hypotheses.id", String.class));
            BundleDiagnosis stored = QuarkusTransaction.requiringNew().call(() -> BundleDiagnosis.<BundleDiagnosis>findById(id));
            assertThat(stored).as("stored by the request").isNotNull();
            assertThat(diagnosis(id).getBoolean("recomputed")).as("served as stored from then on").isFalse();
        } finally {
            TxControl.setDefaultTimeout(timeoutBefore);
            slow.disarm();
        }
    }

    private static JsonPath diagnosis(long id) {
        return given().when().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200).extract().jsonPath();
    }
}
