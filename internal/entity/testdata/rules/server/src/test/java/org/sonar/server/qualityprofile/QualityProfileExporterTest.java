package org.sonar.server.qualityprofile;

import java.io.StringWriter;
import org.junit.Test;

public class QualityProfileExporterTest {
  private final QualityProfileExporter underTest = new QualityProfileExporter(new FakeQualityProfileRepository());

  @Test
  public void export_active_rules() {
    StringWriter writer = new StringWriter();
    underTest.export("sonar-way", writer);
    assertThat(writer.toString()).contains("S100");
  }
}
