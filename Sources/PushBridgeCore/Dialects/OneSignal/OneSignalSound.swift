/// OneSignal's `ios_sound` and deprecated `sound`, read for what OneSignal does with them.
/// OpenPush plays the first non-blank of `ios_sound`/`sound`, and only with alert text.
enum OneSignalSound {
    /// OneSignal's value of `ios_sound` that silences the update.
    static let silent = "nil"

    /// The `ios_sound` to send (nil for none), with a finding for every difference: `sound`
    /// is never sent (OneSignal ignores it), `"nil"` is not sent as a file name, and a sound
    /// without alert text gets a caveat that it will not play.
    static func read(_ r: inout FieldReader, hasAlert: Bool, findings: inout [Finding]) -> String? {
        let iosSound = r.string(.ios_sound)
        let chosen = iosSound.flatMap { OpenPushRules.isBlank($0) || $0 == silent ? nil : $0 }
        if let sound = r.string(.sound) {
            let base = "sound is deprecated and ignored by OneSignal (\"The API ignores this field. Use ios_sound\"), but OpenPush would play it (it takes the first non-blank of ios_sound and sound), so it is not forwarded"
            if let chosen {
                findings.append(Finding(field: "sound", kind: .dropped, severity: .info, message: MessageText("\(base); ios_sound \"\(chosen)\" is the sound OneSignal plays, and it is sent").text))
            } else if !OpenPushRules.isBlank(sound) {
                findings.append(Finding(field: "sound", kind: .dropped, message: MessageText("\(base): OpenPush would have played \"\(sound)\", which OneSignal never plays; send ios_sound to choose a sound").text))
            } else {
                findings.append(Finding(field: "sound", kind: .dropped, severity: .info, message: MessageText("\(base); it is blank, so nothing changes").text))
            }
        }
        guard let iosSound else { return nil }
        if iosSound == silent {
            if hasAlert {
                findings.append(Finding(field: "ios_sound", kind: .dropped,
                                        message: "ios_sound \"nil\" is OneSignal's value for silence; OpenPush has no silent value and would look for a sound file named \"nil\" (iOS plays the default sound when the file is missing), so it is not sent. OpenPush cannot silence an alert: this one plays the default sound. To update silently, send no contents or headings"))
            } else {
                findings.append(Finding(field: "ios_sound", kind: .dropped, severity: .info,
                                        message: "ios_sound \"nil\" is OneSignal's value for silence; this update sends no contents or headings, and OpenPush plays no sound without alert text, so it stays silent. \"nil\" is not sent as a sound file name"))
            }
            return nil
        }
        if chosen != nil, !hasAlert {
            findings.append(Finding(field: "ios_sound", kind: .caveat,
                                    message: MessageText("OpenPush plays a Live Activity sound only with alert text, and this update sends no contents or headings, so \"\(iosSound)\" will not play, although OneSignal plays it on the update; add contents (and headings) to hear it").text))
        }
        return iosSound
    }
}
