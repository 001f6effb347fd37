// What the video example's agents write: a 15-second vertical spot for a cold-brew tea,
// each artifact typed by the video pack's contract (Content<TYPE> of
// @handoff/client/packs/video): a field the contract does not have, a value outside an
// enum or a missing required field does not compile. The engine checks the rest (gates,
// timestamps, who may say what).
import type { Content } from "../src/packs/video.js";

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export const inquiry = {
  client: "Hillside Tea",
  request: "A 15-second vertical spot for our spring cold-brew tea, for short-video platforms.",
  project_name: "Hillside spring cold brew 15s",
  channel: "email",
};

export const requirements: Content<"REQUIREMENTS"> = {
  client: "Hillside Tea",
  project_name: "Hillside spring cold brew 15s",
  request: "A 15-second vertical brand spot for the spring cold-brew green tea, fresh, natural and young.",
  industry: "tea drinks",
  duration: 15,
  deliverables: ["15s vertical film 9:16", "AI video prompt pack"],
  references: ["https://www.xinpianchang.com/a10986543"],
  deadline: inDays(30),
};

export const brief: Content<"A1"> = {
  project_name: "Hillside spring cold brew 15s",
  client: "Hillside Tea",
  industry: "tea drinks",
  style_line: "通用线",
  duration: 15,
  key_message: "A sip of spring, cold-brewed",
  target_audience: "Office workers aged 22 to 32 in large cities who like light, healthy drinks",
  creative_brief: "A tired office worker opens a bottle of cold-brew tea late at night and her desk turns into a spring tea garden.",
  visual_direction: "Clear fresh greens and morning light, vertical framing, macro water drops and unfolding leaves",
  tone_of_voice: "Light, soothing, a little playful",
  deliverables: ["15s vertical film 9:16", "AI video prompt pack"],
  constraints: ["No health claims", "Brand green #3A7D44 as the main colour"],
  references: ["https://www.xinpianchang.com/a10986543", "A spring spot where an office melts into a green landscape in one continuous shot"],
};

export const routing: Content<"SKILL_ROUTING"> = {
  style_line: "通用线",
  platform: "seedance",
  routes: [
    { agent: "screenwriter", skill: "humanize-dialogue", artifact: "A6", reason: "Dialogue that reads as people talk" },
    { agent: "vfx-supervisor", skill: "prompt-schema", artifact: "PROMPT", reason: "Prompt structure and fields checked" },
  ],
};

export const characters: Content<"A2"> = {
  characters: [
    {
      name: "Lin",
      role: "lead",
      appearance: "26, short hair, white shirt, staff badge",
      personality: "earnest, stubborn, quick to laugh",
      motivation: "to find a moment of ease in a long day",
      visual_notes: "White shirt with a brand-green lanyard; her eyes go from tired to bright in close-up",
    },
    {
      name: "Grandma Wu",
      role: "support",
      appearance: "in her sixties, straw hat, weathered hands",
      personality: "warm, hearty",
      motivation: "to hand the best of spring tea to the young",
      visual_notes: "Warm backlight with a rim on the straw hat; only in the tea garden",
    },
  ],
};

export const outline: Content<"A3"> = {
  act_structure: {
    act1: { start: "00:00", end: "00:06", duration: "6s" },
    act2: { start: "00:06", end: "00:11", duration: "5s" },
    act3: { start: "00:11", end: "00:15", duration: "4s" },
  },
  emotional_arc: "tired → surprised → soothed and light",
  key_moments: ["The soft click of the cap", "The desk turns into a tea garden", "Lin raises the bottle to the camera"],
  pacing_notes: "Slow start, a crisp turn in act two, end on the product",
};

/** The script; draft 1 is what the director sends back, draft 2 its repair. */
export function script(draft: 1 | 2): Content<"A6"> {
  return {
    title: "A Sip of Spring",
    writer: "screenwriter",
    date: inDays(0),
    scenes: [
      {
        scene_heading: "1. INT. OFFICE - NIGHT",
        scene_description: "An empty open-plan office late at night, one desk lamp on.",
        action: "Lin rubs her eyes, takes a bottle of cold-brew tea from her bag and twists it open.",
        dialogue: [{ character: "Lin", line: draft === 1 ? "I shall now complete the final revision of this document." : "One last version…", parenthetical: "under her breath" }],
      },
      {
        scene_heading: "2. EXT. TEA GARDEN - DAY",
        scene_description: "The desk becomes rows of tea bushes in the morning mist.",
        action: "Lin stands among the rows; Grandma Wu hands her a fresh leaf.",
        dialogue: [{ character: "Grandma Wu", line: "Smell that, love. That's spring." }],
      },
      {
        scene_heading: "3. INT. OFFICE - DAY",
        scene_description: "Morning light fills the office.",
        action: "Lin raises the bottle to the camera and smiles.",
        dialogue: [{ character: "Lin", line: "A sip of spring." }],
      },
    ],
  };
}

export const breakdown: Content<"A4"> = {
  scenes: [
    { scene_id: "S1", location: "office", time_of_day: "night", description: "Worn out late at night", duration: "6s", plot_rhythm: "loose", emotion_rhythm: "heavy", mini_dramatic_action: "twists the cap open", characters_present: ["Lin"] },
    { scene_id: "S2", location: "tea garden", time_of_day: "day", description: "The spring tea garden she imagines", duration: "5s", plot_rhythm: "tense", emotion_rhythm: "light", mini_dramatic_action: "takes the fresh leaf", characters_present: ["Lin", "Grandma Wu"] },
    { scene_id: "S3", location: "office", time_of_day: "morning", description: "Back at her desk, refreshed", duration: "4s", plot_rhythm: "medium", emotion_rhythm: "light", mini_dramatic_action: "raises the bottle", characters_present: ["Lin"] },
  ],
};

const shot = (shot_id: string, scene_ref: string, timestamp: string, shot_type: string, movement: string, angle: string, subject: string, action: string, music_notes: string, notes: string) => ({
  shot_id,
  scene_ref,
  timestamp,
  shot_type,
  camera: { movement, angle, distance: shot_type },
  subject,
  action,
  music_notes,
  notes,
});

export const storyboard: Content<"A5"> = {
  shots: [
    { ...shot("SH1", "S1", "[00:00-00:03]", "medium shot", "slow push-in", "eye level", "Lin", "rubs her eyes and sighs", "a low single piano note", "cold lamp light"), dialogue: "One last version…" },
    shot("SH2", "S1", "[00:03-00:06]", "close-up", "static", "high angle", "the tea bottle", "the cap twists open, drops run down", "the click, then silence", "sound design beat"),
    { ...shot("SH3", "S2", "[00:06-00:11]", "wide shot", "tracking", "low angle", "Lin and Grandma Wu", "the desk turns into tea rows; a leaf is handed over", "strings rise", "one continuous transition"), dialogue: "Smell that, love. That's spring." },
    { ...shot("SH4", "S3", "[00:11-00:15]", "medium close-up", "slow pull-out", "eye level", "Lin", "raises the bottle to the camera and smiles", "the theme resolves", "brand green pack and logo clearly visible"), dialogue: "A sip of spring." },
  ],
  color_direction: "Cold night blue → fresh green and warm gold → clear morning light",
  overall_pacing: "6/5/4, a crisp turn in the middle",
};

const negative = "deformed hands, extra fingers, watermark text, low resolution, overexposure";

export const prompts: Content<"PROMPT"> = {
  platform: "seedance",
  scene_prompts: [
    { timestamp: "[00:00-00:03]", prompt_text: "Late-night office, young woman rubbing her eyes, cold desk lamp, slow push-in, vertical, cinematic", negative_prompt: negative, seed: 1501 },
    { timestamp: "[00:03-00:06]", prompt_text: "High-angle macro of a hand twisting open a green tea bottle, drops running down, shallow depth of field", negative_prompt: negative, seed: 1502 },
    { timestamp: "[00:06-00:11]", prompt_text: "A desk turning into rows of spring tea bushes in morning mist, an old woman in a straw hat handing over a fresh leaf, tracking shot", negative_prompt: negative, seed: 1503 },
    { timestamp: "[00:11-00:15]", prompt_text: "Sunlit office, young woman raising a green tea bottle to the camera and smiling, slow pull-out, logo clearly visible", negative_prompt: negative, seed: 1504 },
  ],
  style_reference: "Fresh Japanese-style commercial, soft natural light, brand green",
  technical_specs: { resolution: "1080x1920", fps: 24, duration: "00:15" },
};

export const editPlan: Content<"EDIT_PLAN"> = {
  total_duration: 15,
  timeline: [
    { shot_id: "SH1", timestamp: "[00:00-00:03]", transition: "hard cut" },
    { shot_id: "SH2", timestamp: "[00:03-00:06]", transition: "match cut" },
    { shot_id: "SH3", timestamp: "[00:06-00:11]", transition: "dissolve" },
    { shot_id: "SH4", timestamp: "[00:11-00:15]", transition: "fade out", notes: "hold the logo for the last second" },
  ],
  music: "Light strings, 15s cut, strings enter at 6s",
  color_grade: "Cold night blue, warm garden green, a clear bright end",
  subtitles: "English subtitles, bottom centre",
  export_specs: { resolution: "1080x1920", fps: 24, format: "MP4 H.264" },
};

/** The confirmation the client sees: the versions presented are citations, resolved to the
 * recorded versions and their hashes when the request is sent. */
export const confirmation = {
  project_name: "Hillside spring cold brew 15s",
  client: "Hillside Tea",
  presented: ["${ref:EDIT_PLAN@latest}", "${ref:PROMPT@latest}", "${ref:A5@latest}"],
  summary: "Please confirm the edit plan, storyboard and AI prompts of the 15s vertical spot; the film is generated once you confirm.",
} satisfies Omit<Content<"CLIENT_CONFIRMATION">, "presented"> & { presented: string[] };
