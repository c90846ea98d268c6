import Testing

@Test func placeholder_ContentHostTests() { #expect(Bool(true)) }
