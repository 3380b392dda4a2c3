// Tests written with a test framework's macros.
TEST(RingTest, PushPop) {
  EXPECT_EQ(1, 1);
}

TEST_F(RingFixture, Grows) { }

class MockRing : public Ring {
 public:
  MOCK_METHOD(int, Size, (), (const, override));
  FRIEND_TEST(RingTest, PushPop);
};
