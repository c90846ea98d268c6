import Testing

@Test func placeholder_ContentDeliveryTests() { #expect(Bool(true)) }
