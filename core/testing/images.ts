/**
 * Small real images in the three formats image APIs deliver (issue 29): fakes of image providers
 * serve these instead of each keeping its own base64 copy. 8×8 pixels, made with ffmpeg.
 */

/** A sample image: its content type and bytes. */
export interface SampleImage {
  type: string;
  bytes: Buffer;
}

/** By file extension: `png`, `jpg`, `webp`. */
export const SAMPLE_IMAGES: Readonly<Record<'png' | 'jpg' | 'webp', SampleImage>> = {
  png: { type: 'image/png', bytes: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAACXBIWXMAAAABAAAAAQBPJcTWAAAAEklEQVR4nGP4y8CAFWEXHbQSAPZwP0G2GkFNAAAAAElFTkSuQmCC', 'base64') },
  jpg: { type: 'image/jpeg', bytes: Buffer.from('/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgKCgsKCw0NDQ0NDRAPEBAQEBAQEBAQEBASEhIVFRUSEhIQEBISFBQVFRcXFxUVFRUXFxkZGR4eHBwjIyQrKzP/xABLAAEBAAAAAAAAAAAAAAAAAAAABgEBAAAAAAAAAAAAAAAAAAAABhABAAAAAAAAAAAAAAAAAAAAABEBAAAAAAAAAAAAAAAAAAAAAP/AABEIAAgACAMBIgACEQADEQD/2gAMAwEAAhEDEQA/AIsAVCX/2Q==', 'base64') },
  webp: { type: 'image/webp', bytes: Buffer.from('UklGRhwAAABXRUJQVlA4TA8AAAAvB8ABAAcQ0f/+ByKi/wEA', 'base64') },
};
