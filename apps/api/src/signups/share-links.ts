/** A link that passes the referral link on without a script: the network it goes to (null: a mail), and its URL. */
export interface ShareLink {
  network: string | null;
  href: string;
}

const q = encodeURIComponent;

/**
 * The links for mail and the common networks that carry `link` with `text` (the product's invitation to
 * join, in the person's language), each network's share URL as it documents it. mailto: encodes
 * spaces as %20, never +, which mail programs would show.
 */
export function shareLinks(link: string, text: string): ShareLink[] {
  return [
    { network: null, href: `mailto:?subject=${q(text)}&body=${q(`${text}\n${link}`)}` },
    { network: 'X', href: `https://twitter.com/intent/tweet?text=${q(text)}&url=${q(link)}` },
    { network: 'LinkedIn', href: `https://www.linkedin.com/sharing/share-offsite/?url=${q(link)}` },
    { network: 'Facebook', href: `https://www.facebook.com/sharer/sharer.php?u=${q(link)}` },
    { network: 'WhatsApp', href: `https://wa.me/?text=${q(`${text} ${link}`)}` },
    { network: 'Telegram', href: `https://t.me/share/url?url=${q(link)}&text=${q(text)}` },
    { network: 'Reddit', href: `https://www.reddit.com/submit?url=${q(link)}&title=${q(text)}` },
  ];
}
