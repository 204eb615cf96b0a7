import { describe, expect, it } from "vitest";
import { erasesDelivery } from "./run-cascade.js";

describe("run cascade", () => {
  it("erases finished deliveries with their run and keeps a pending one to be sent", () => {
    expect(erasesDelivery({ status: "delivered" })).toBe(true);
    expect(erasesDelivery({ status: "failed" })).toBe(true);
    expect(erasesDelivery({ status: "pending" })).toBe(false);
  });
});
