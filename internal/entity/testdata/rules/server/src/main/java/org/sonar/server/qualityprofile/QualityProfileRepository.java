package org.sonar.server.qualityprofile;

import java.util.List;

public interface QualityProfileRepository {
  QualityProfile selectByKey(String qualityProfileKey);

  List<QualityProfile> selectChildren(String qualityProfileKey);

  void insert(QualityProfile qualityProfile);
}
