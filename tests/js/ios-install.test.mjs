// Which phones are told how to add the app to the Home Screen (static/ios-install.js): Safari
// on iOS and iPadOS only, and not when already opened from the Home Screen. User agents as
// those browsers send them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { wantsHomeScreen } from "../../static/ios-install.js";

const IPHONE_SAFARI = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const IPAD_DESKTOP = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
const IPHONE_CHROME = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1";
const IPHONE_FIREFOX = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/127.0 Mobile/15E148 Safari/605.1.15";
const ANDROID_CHROME = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

test("Safari on an iPhone, in a tab: told", () => {
  assert.equal(wantsHomeScreen({ userAgent: IPHONE_SAFARI, maxTouchPoints: 5 }), true);
  assert.equal(wantsHomeScreen({ userAgent: IPHONE_SAFARI, maxTouchPoints: 5, standalone: false }), true);
});

test("opened from the Home Screen (navigator.standalone): not told", () => {
  assert.equal(wantsHomeScreen({ userAgent: IPHONE_SAFARI, maxTouchPoints: 5, standalone: true }), false);
});

test("an iPad says it is a Mac, with a touch screen: told; a Mac's Safari is not", () => {
  assert.equal(wantsHomeScreen({ userAgent: IPAD_DESKTOP, maxTouchPoints: 5, standalone: false }), true);
  assert.equal(wantsHomeScreen({ userAgent: IPAD_DESKTOP, maxTouchPoints: 0 }), false);
});

test("Chrome or Firefox on an iPhone, Chrome on Android, nothing: not told", () => {
  assert.equal(wantsHomeScreen({ userAgent: IPHONE_CHROME, maxTouchPoints: 5 }), false);
  assert.equal(wantsHomeScreen({ userAgent: IPHONE_FIREFOX, maxTouchPoints: 5 }), false);
  assert.equal(wantsHomeScreen({ userAgent: ANDROID_CHROME, maxTouchPoints: 5 }), false);
  assert.equal(wantsHomeScreen(undefined), false);
});
