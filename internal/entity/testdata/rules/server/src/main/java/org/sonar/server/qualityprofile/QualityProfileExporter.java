package org.sonar.server.qualityprofile;

import java.io.Writer;

public class QualityProfileExporter {
  private final QualityProfileRepository qualityProfileRepository;

  public QualityProfileExporter(QualityProfileRepository qualityProfileRepository) {
    this.qualityProfileRepository = qualityProfileRepository;
  }

  public void export(String qualityProfileKey, Writer writer) {
    QualityProfile qualityProfile = qualityProfileRepository.selectByKey(qualityProfileKey);
    for (ActiveRule activeRule : qualityProfile.getActiveRules()) {
      writeActiveRule(writer, activeRule);
    }
  }
}
