package org.sonar.server.util;

import java.time.Instant;

public final class DateUtils {
  private DateUtils() {
  }

  public static String formatDate(Instant date) {
    return date.toString();
  }

  public static Instant parseDate(String value) {
    return Instant.parse(value);
  }
}
