package dev.crashlab.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ContentDispositionTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '#', value = {
        "attachment; filename=\"bundle.zip\"                     | bundle.zip",
        "attachment; filename=bundle.tgz                         | bundle.tgz",
        "attachment; filename=\"a \\\"q\\\".zip\"                | a \"q\".zip",
        "attachment; filename=\"x.zip\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.zip | 日本.zip",
        "attachment; filename*=UTF-8''a+b%20c.zip                | a+b c.zip",
    })
    void readsTheFileName(String header, String expected) {
        assertThat(ContentDisposition.fileName(header)).contains(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '#', nullValues = "NULL", value = {"NULL", "inline", "attachment; name=x"})
    void findsNoFileNameWhereThereIsNone(String header) {
        assertThat(ContentDisposition.fileName(header)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '#', value = {
        "crash.log        | inline; filename=\"crash.log\"; filename*=UTF-8''crash.log",
        "日本 \"1\".log   | inline; filename=\"__ _1_.log\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%20%221%22.log",
    })
    void writesASafeHeader(String name, String expected) {
        assertThat(ContentDisposition.header("inline", name)).isEqualTo(expected);
    }
}
