import Testing

@Test func placeholder_iapcontentTests() { #expect(Bool(true)) }
