import Foundation

/// The lowest temperature a thermostat accepts.
let minimumCelsius = 5.0

protocol TemperatureSensor {
    func read() throws -> Double
}

enum Mode {
    case heating
    case cooling
}

struct Reading {
    let celsius: Double
    let at: Date
}

/// Keeps a room at its target temperature.
class Thermostat {
    var target: Double
    private let sensor: TemperatureSensor

    init(target: Double, sensor: TemperatureSensor) {
        self.target = target
        self.sensor = sensor
    }

    // Decides whether to heat or cool right now.
    func decide() throws -> Mode {
        let current = try sensor.read()
        // TODO: add a dead band around the target
        if current < target {
            return .heating
        }
        print("room is warmer than the target of \(target) degrees")
        return .cooling
    }
}

func clamp(_ value: Double) -> Double {
    return max(value, minimumCelsius)
}
