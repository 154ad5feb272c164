package dev.crashlab.repro;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Memory sizes as people type them. */
class ByteSizeTest {

    @Test
    void parsesBinaryAndDecimalUnits() {
        assertThat(ByteSize.parse("6GiB")).isEqualTo(6L << 30);
        assertThat(ByteSize.parse("6G")).isEqualTo(6L << 30);
        assertThat(ByteSize.parse("6 gib")).isEqualTo(6L << 30);
        assertThat(ByteSize.parse("512MiB")).isEqualTo(512L << 20);
        assertThat(ByteSize.parse("1.5K")).isEqualTo(1536);
        assertThat(ByteSize.parse("6GB")).isEqualTo(6_000_000_000L);
        assertThat(ByteSize.parse("1048576")).isEqualTo(1048576);
        assertThat(ByteSize.parse("100B")).isEqualTo(100);
    }

    @Test
    void refusesWhatIsNotASize() {
        for (String bad : new String[] {null, "", "lots", "-1G", "6 XB", "iB", "5iB", "1e3", "99999999999T"}) {
            assertThat(ByteSize.parse(bad)).as(bad).isEqualTo(-1);
        }
    }

    @Test
    void formatsForPeople() {
        assertThat(ByteSize.format(812)).isEqualTo("812 B");
        assertThat(ByteSize.format(340L << 20)).isEqualTo("340.0 MiB");
        assertThat(ByteSize.format((long) (5.1 * (1L << 30)))).isEqualTo("5.1 GiB");
    }
}
