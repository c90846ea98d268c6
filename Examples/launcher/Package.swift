// swift-tools-version: 6.0
// A small launcher daemon that embeds iapcontent's `ContentDownloads`: the code a client service copies.
import Foundation
import PackageDescription

// This package depends on the checkout it lives in; SwiftPM names a path dependency after its folder, which
// differs between checkouts, so the name is derived the same way.
let iapcontent = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL
let iapcontentPackage = iapcontent.lastPathComponent.lowercased()

let package = Package(
    name: "launcher",
    dependencies: [
        .package(path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "launcher",
            dependencies: [
                .product(name: "ContentDownloads", package: iapcontentPackage),
                .product(name: "ContentDelivery", package: iapcontentPackage),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
