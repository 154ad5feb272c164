package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crashlab.parse.evtx.EvtxSystemLogFixture;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * GET /api/bundles/{id}/artifacts/{a}/events/{record}: one event of a stored .evtx with its neighbours, read from
 * the blob by record number (the log is written by the test-side EVTX writer), and clear 4xx answers for bad input.
 */
@QuarkusTest
class EventRecordApiTest {

    static final long FIRST = 62_700;
    static final int COUNT = 200;

    @Test
    void servesOneRecordWithItsNeighboursAndRefusesBadInputInWords() {
        long record = EvtxSystemLogFixture.kernelPowerRecord(FIRST, COUNT);
        byte[] zip = Zips.zip()
                .text("crash.log", "RuntimeError: CUDA error: out of memory\n")
                .bytes("System.evtx", EvtxSystemLogFixture.bytes(FIRST, COUNT))
                .build();
        Response created = given().multiPart("file", "evtx.zip", zip, "application/zip").post("/api/bundles")
                .then().statusCode(201).extract().response();
        long id = created.<Integer>path("id");
        dev.crashlab.testing.Ready.await(id);
        List<String> types = created.path("artifacts.type");
        List<Integer> ids = created.path("artifacts.id");
        int evtx = ids.get(types.indexOf("EVTX"));
        int log = ids.get(types.indexOf("CONSOLE_LOG"));
        String url = "/api/bundles/" + id + "/artifacts/" + evtx + "/events/";

        given().get(url + record).then().statusCode(200)
                .body("artifact", equalTo("System.evtx"))
                .body("event.recordId", equalTo((int) record))
                .body("event.provider", equalTo("Microsoft-Windows-Kernel-Power"))
                .body("event.eventId", equalTo(41))
                .body("event.level", equalTo("Critical"))
                .body("event.channel", equalTo("System"))
                .body("event.data.BugcheckCode", equalTo("0"))
                .body("event.xml", containsString("<EventRecordID>" + record + "</EventRecordID>"))
                .body("before.recordId", equalTo(List.of((int) record - 3, (int) record - 2, (int) record - 1)))
                .body("after.recordId", equalTo(List.of((int) record + 1, (int) record + 2, (int) record + 3)));
        // issue 27 asks for under 1 s from the click; the server's part of it, past the first call (which loads the
        // endpoint's and the reader's classes in a cold test JVM), for a record in another chunk
        long start = System.nanoTime();
        given().get(url + (FIRST + 5)).then().statusCode(200).body("event.recordId", equalTo((int) FIRST + 5));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis < 1000, "one record took " + millis + " ms");

        given().get(url + record + "?neighbours=0").then().statusCode(200).body("before", hasSize(0)).body("after", hasSize(0));
        given().get(url + "99").then().statusCode(404).body("detail", containsString("no readable event with record number 99"));
        given().get(url + "abc").then().statusCode(400).body("detail", containsString("whole number"));
        given().get(url + record + "?neighbours=500").then().statusCode(400).body("detail", containsString("0 to 10"));
        given().get("/api/bundles/" + id + "/artifacts/" + log + "/events/1").then().statusCode(400)
                .body("detail", containsString("not a Windows event log"));
        given().get("/api/bundles/" + id + "/artifacts/999999/events/1").then().statusCode(404);
        // viewers may read it; no caller is refused with a 401
        given().header("Authorization", "").get(url + record).then().statusCode(401);
    }
}
